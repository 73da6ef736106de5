import Foundation
import LocalCloud

/// Where a PostgreSQL database is: `postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE`.
///
/// ```swift
/// let url = try PostgresURL("postgresql://localcloud@127.0.0.1:5432/foodpin")
/// ```
///
/// A password may also come from `PGPASSWORD`, so it stays out of process listings.
/// The URL's `description` never shows the password.
package struct PostgresURL: Sendable, Hashable, CustomStringConvertible {
    package var user: String
    package var password: String?
    package var host: String
    package var port: Int
    package var database: String

    package init(user: String, password: String? = nil, host: String, port: Int = 5432, database: String) {
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.database = database
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
        self.init(user: user.removingPercentEncoding ?? user,
                  password: components.password.map { $0.removingPercentEncoding ?? $0 } ?? environment["PGPASSWORD"],
                  host: host, port: components.port ?? 5432,
                  database: database.removingPercentEncoding ?? database)
    }

    /// The URL without its password.
    package var description: String { "postgresql://\(user)@\(host):\(port)/\(database)" }
}
