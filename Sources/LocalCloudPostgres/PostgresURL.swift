import Foundation
import LocalCloud

/// Where a PostgreSQL database is, and how to reach it:
/// `postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?connect_timeout=SECONDS&sslmode=MODE&sslrootcert=FILE&sslcert=FILE&sslkey=FILE]`.
///
/// ```swift
/// let url = try PostgresURL("postgresql://localcloud@127.0.0.1:5432/foodpin?connect_timeout=5")
/// let managed = try PostgresURL("postgresql://app@db.example.com/foodpin?sslmode=verify-full&sslrootcert=/etc/ssl/db-ca.pem")
/// ```
///
/// A password may also come from `PGPASSWORD`, so it stays out of process listings.
/// `connect_timeout` (libpq's name) bounds how long a call waits for a connection: while the
/// database is down or restarting, requests fail after it with TRY_AGAIN_LATER instead of waiting.
/// The TLS parameters mean what they mean to libpq (see ``SSLMode``); `PGSSLMODE`,
/// `PGSSLROOTCERT`, `PGSSLCERT` and `PGSSLKEY` give them when the URL does not.
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
    /// Whether to use TLS and what to check of the server's certificate: libpq's `sslmode`.
    package var sslMode: SSLMode
    /// The CA certificates (PEM) that sign the server's certificate, or `system` for the system's
    /// trusted roots; `nil` for libpq's default, `~/.postgresql/root.crt`.
    package var sslRootCert: String?
    /// The client certificate (PEM) to present; `nil` for `~/.postgresql/postgresql.crt` if it exists.
    package var sslCert: String?
    /// The client certificate's private key (PEM); `nil` for `~/.postgresql/postgresql.key`.
    package var sslKey: String?

    /// Three seconds: long enough for a busy pool to free a connection, short enough that a
    /// client told to retry does so before its user gives up.
    package static let defaultConnectTimeout = Duration.seconds(3)

    /// libpq's `sslmode`: whether the connection uses TLS, and how much of the server's certificate is checked.
    ///
    /// | Mode | TLS | The server's certificate |
    /// |---|---|---|
    /// | `disable` | never | — |
    /// | `prefer` (the default) | if the server offers it | checked against `sslrootcert` only when one is given |
    /// | `require` | always | as `prefer` |
    /// | `verify-ca` | always | signed by a CA in `sslrootcert` |
    /// | `verify-full` | always | signed by a CA in `sslrootcert`, and names the URL's host |
    ///
    /// libpq's `allow` (plain first, TLS only if the server insists) is refused: the driver cannot
    /// fall back that way, and `prefer` reaches every server `allow` does.
    package enum SSLMode: String, Sendable, Hashable, CaseIterable {
        case disable
        case prefer
        case require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"

        /// Whether the server's certificate must be signed by a trusted CA whatever `sslrootcert` says.
        package var verifiesCertificate: Bool { self == .verifyCA || self == .verifyFull }
    }

    /// `sslrootcert=system`: the system's trusted roots (libpq 16's keyword), as for a managed database
    /// whose certificate comes from a public CA.
    package static let systemRootCertificates = "system"

    package init(user: String, password: String? = nil, host: String, port: Int = 5432, database: String,
                 connectTimeout: Duration = PostgresURL.defaultConnectTimeout, sslMode: SSLMode = .prefer,
                 sslRootCert: String? = nil, sslCert: String? = nil, sslKey: String? = nil) {
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.database = database
        self.connectTimeout = connectTimeout
        self.sslMode = sslMode
        self.sslRootCert = sslRootCert
        self.sslCert = sslCert
        self.sslKey = sslKey
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
        // libpq's environment variables, overridden by the URL's parameters.
        var ssl: [String: String] = [:]
        for (name, variable) in [("sslmode", "PGSSLMODE"), ("sslrootcert", "PGSSLROOTCERT"), ("sslcert", "PGSSLCERT"), ("sslkey", "PGSSLKEY")] {
            if let value = environment[variable], !value.isEmpty { ssl[name] = value }
        }
        var seen: Set<String> = []
        for item in components.queryItems ?? [] {
            guard seen.insert(item.name).inserted else { throw invalid("'\(item.name)' is given twice") }
            switch item.name {
            case "connect_timeout":
                guard let seconds = item.value.flatMap(Double.init), seconds > 0, seconds <= 3600 else {
                    throw invalid("connect_timeout must be a number of seconds")
                }
                connectTimeout = .milliseconds(Int64(seconds * 1000))
            case "sslmode", "sslrootcert", "sslcert", "sslkey":
                guard let value = item.value, !value.isEmpty else { throw invalid("\(item.name) needs a value") }
                ssl[item.name] = value
            default:
                throw invalid("unknown parameter '\(item.name)'")
            }
        }
        let sslRootCert = ssl["sslrootcert"]
        let sslMode: SSLMode
        if let text = ssl["sslmode"] {
            guard let mode = SSLMode(rawValue: text) else {
                let known = SSLMode.allCases.map(\.rawValue).joined(separator: ", ")
                throw invalid(text == "allow" ? "sslmode=allow is not supported; use prefer, which also reaches servers without TLS"
                                              : "sslmode must be one of \(known), not '\(text)'")
            }
            sslMode = mode
        } else {
            // libpq 16: the system's roots are only worth anything with the host name checked.
            sslMode = sslRootCert == Self.systemRootCertificates ? .verifyFull : .prefer
        }
        if sslRootCert == Self.systemRootCertificates, sslMode != .verifyFull, sslMode != .disable {
            throw invalid("sslrootcert=system needs sslmode=verify-full, not \(sslMode.rawValue): any certificate from a public CA would pass otherwise")
        }
        if (ssl["sslcert"] == nil) != (ssl["sslkey"] == nil) {
            throw invalid("sslcert and sslkey go together: the certificate and its private key")
        }
        self.init(user: user.removingPercentEncoding ?? user,
                  password: components.password.map { $0.removingPercentEncoding ?? $0 } ?? environment["PGPASSWORD"],
                  host: host, port: components.port ?? 5432,
                  database: database.removingPercentEncoding ?? database, connectTimeout: connectTimeout,
                  sslMode: sslMode, sslRootCert: sslRootCert, sslCert: ssl["sslcert"], sslKey: ssl["sslkey"])
    }

    /// The URL without its password; parameters at their defaults are left out.
    package var description: String {
        let base = "postgresql://\(user)@\(host):\(port)/\(database)"
        var parameters: [String] = []
        if connectTimeout != Self.defaultConnectTimeout {
            let (seconds, attoseconds) = connectTimeout.components
            parameters.append("connect_timeout=\(Double(seconds) + Double(attoseconds) / 1e18)")
        }
        if sslMode != .prefer { parameters.append("sslmode=\(sslMode.rawValue)") }
        for (name, value) in [("sslrootcert", sslRootCert), ("sslcert", sslCert), ("sslkey", sslKey)] {
            guard let value else { continue }
            var allowed = CharacterSet.urlQueryAllowed
            allowed.remove(charactersIn: "&=+#")
            parameters.append("\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)")
        }
        return parameters.isEmpty ? base : base + "?" + parameters.joined(separator: "&")
    }
}
