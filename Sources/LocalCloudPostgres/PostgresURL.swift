import Foundation
import LocalCloud

/// Where a PostgreSQL database is: `postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?connect_timeout=SECONDS]`.
///
/// ```swift
/// let url = try PostgresURL("postgresql://localcloud@127.0.0.1:5432/foodpin?connect_timeout=5")
/// ```
///
/// A password may also come from `PGPASSWORD`, so it stays out of process listings.
/// `connect_timeout` (libpq's name) bounds how long a call waits for a connection: while the
/// database is down or restarting, requests fail after it with TRY_AGAIN_LATER instead of waiting.
/// The URL's `description` never shows the password.
package struct PostgresURL: Sendable, Hashable, CustomStringConvertible {
    package var user: String
    package var password: String?
    package var host: String
    package var port: Int
    package var database: String
    /// How long a call waits for a pooled connection (or a new one) before it fails with
    /// `serviceUnavailable`.
    package var connectTimeout: Duration

    /// Three seconds: long enough for a busy pool to free a connection, short enough that a
    /// client told to retry does so before its user gives up.
    package static let defaultConnectTimeout = Duration.seconds(3)

    package init(user: String, password: String? = nil, host: String, port: Int = 5432, database: String,
                 connectTimeout: Duration = PostgresURL.defaultConnectTimeout) {
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.database = database
        self.connectTimeout = connectTimeout
    }

    /// - Throws: `CloudError(.invalidArguments)` naming what is wrong with the URL.
    package init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        func invalid(_ why: String) -> CloudError {
            CloudError(.invalidArguments, "Invalid database URL (\(why)); expected postgresql://USER@HOST:PORT/DATABASE")
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw invalid("not a URL")
        }
        guard scheme == "postgresql" || scheme == "postgres" else { throw invalid("the scheme must be postgresql://") }
        guard let host = components.host, !host.isEmpty else { throw invalid("no host") }
        guard let user = components.user, !user.isEmpty else { throw invalid("no user") }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else { throw invalid("no database name") }
        if let port = components.port, !(1...65535).contains(port) { throw invalid("bad port") }
        var connectTimeout = Self.defaultConnectTimeout
        for item in components.queryItems ?? [] {
            guard item.name == "connect_timeout" else { throw invalid("unknown parameter '\(item.name)'") }
            guard let seconds = item.value.flatMap(Double.init), seconds > 0, seconds <= 3600 else {
                throw invalid("connect_timeout must be a number of seconds")
            }
            connectTimeout = .milliseconds(Int64(seconds * 1000))
        }
        self.init(user: user.removingPercentEncoding ?? user,
                  password: components.password.map { $0.removingPercentEncoding ?? $0 } ?? environment["PGPASSWORD"],
                  host: host, port: components.port ?? 5432,
                  database: database.removingPercentEncoding ?? database, connectTimeout: connectTimeout)
    }

    /// The URL without its password.
    package var description: String {
        let base = "postgresql://\(user)@\(host):\(port)/\(database)"
        guard connectTimeout != Self.defaultConnectTimeout else { return base }
        let (seconds, attoseconds) = connectTimeout.components
        return base + "?connect_timeout=\(Double(seconds) + Double(attoseconds) / 1e18)"
    }
}
