import Foundation
import LocalCloud
import NIOSSL
import PostgresNIO
import Synchronization

/// A ``PostgresURL``'s TLS settings as postgres-nio's: libpq's `sslmode`, `sslrootcert`, `sslcert`
/// and `sslkey` on NIOSSL.
///
/// ```swift
/// let tls = try PostgresTLS.settings(for: url)       // reads the certificate files once
/// var configuration = try tls.connectionConfiguration(url)
/// ```
///
/// Files are read when the settings are made, so a missing or unreadable one is a clear error
/// before any connection. Like libpq, with no `sslrootcert` the CA file is
/// `~/.postgresql/root.crt` (required by `verify-ca` and `verify-full`, used by `prefer` and
/// `require` when it exists), and the client certificate `~/.postgresql/postgresql.crt` with its key
/// `postgresql.key` when they exist. The verification itself is NIOSSL's (BoringSSL).
struct PostgresTLS: Sendable {
    let mode: PostgresURL.SSLMode
    /// The CA file that checks the server's certificate, `system` for the system's roots, nil for none.
    let rootCertificate: String?
    /// nil when `mode` is `disable`.
    let configuration: TLSConfiguration?
    let context: NIOSSLContext?

    private static let cache = Mutex<[PostgresURL: PostgresTLS]>([:])

    /// The settings for `url`, made once per URL in this process (a failure is not kept, so a fixed
    /// file is read on the next attempt).
    /// - Throws: `CloudError(.invalidArguments)` naming the file or setting that is wrong.
    static func settings(for url: PostgresURL) throws -> PostgresTLS {
        if let known = cache.withLock({ $0[url] }) { return known }
        let made = try PostgresTLS(url: url)
        cache.withLock { $0[url] = made }
        return made
    }

    /// - Parameter home: where `~/.postgresql` is; `$HOME` (else the account's home directory) by default.
    init(url: PostgresURL, home: String? = nil) throws {
        mode = url.sslMode
        guard url.sslMode != .disable else {
            rootCertificate = nil
            configuration = nil
            context = nil
            return
        }
        // $HOME first, then the account's home, as libpq looks.
        let environmentHome = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
        let defaults = URL(fileURLWithPath: home ?? environmentHome ?? NSHomeDirectory(), isDirectory: true)
            .appendingPathComponent(".postgresql")
        var tls = TLSConfiguration.makeClientConfiguration()

        // The server's certificate: which CAs, and whether the name is checked.
        var root = url.sslRootCert
        if root == nil {
            let standard = defaults.appendingPathComponent("root.crt").path
            if FileManager.default.fileExists(atPath: standard) {
                root = standard
            } else if url.sslMode.verifiesCertificate {
                throw Self.invalid("""
                    root certificate file "\(standard)" does not exist; give sslrootcert=FILE (or sslrootcert=system \
                    for a certificate from a public CA), or an sslmode that does not check the server's certificate
                    """)
            }
        }
        rootCertificate = root
        if let root {
            if root == PostgresURL.systemRootCertificates {
                tls.trustRoots = .default
            } else {
                tls.trustRoots = .certificates(try Self.certificates(root, parameter: "sslrootcert"))
            }
            // As libpq: a CA file makes prefer and require check the chain too (not the name).
            tls.certificateVerification = url.sslMode == .verifyFull ? .fullVerification : .noHostnameVerification
        } else {
            // prefer and require without a CA: encrypted, but any certificate is accepted, as with libpq.
            tls.certificateVerification = .none
        }

        // The client certificate, for servers that ask for one (`cert` in pg_hba.conf).
        var certificate = url.sslCert.map { ($0, url.sslKey ?? "") }
        if certificate == nil {
            let (crt, key) = (defaults.appendingPathComponent("postgresql.crt").path, defaults.appendingPathComponent("postgresql.key").path)
            if FileManager.default.fileExists(atPath: crt) { certificate = (crt, key) }
        }
        if let (crt, key) = certificate {
            tls.certificateChain = try Self.certificates(crt, parameter: "sslcert").map { .certificate($0) }
            tls.privateKey = .privateKey(try Self.privateKey(key))
        }
        configuration = tls
        do {
            context = try NIOSSLContext(configuration: tls)
        } catch {
            throw Self.invalid("the TLS settings cannot be used: \(error)")
        }
    }

    /// The pool's setting: `prefer` may fall back to plain text, the other modes may not.
    var clientTLS: PostgresClient.Configuration.TLS {
        guard let configuration else { return .disable }
        return mode == .prefer ? .prefer(configuration) : .require(configuration)
    }

    /// A single connection's configuration for `url`, with these settings.
    func connectionConfiguration(_ url: PostgresURL) -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        if let context {
            tls = mode == .prefer ? .prefer(context) : .require(context)
        } else {
            tls = .disable
        }
        var configuration = PostgresConnection.Configuration(host: url.host, port: url.port, username: url.user,
                                                             password: url.password, database: url.database, tls: tls)
        configuration.options.connectTimeout = url.connectTimeout.timeAmount
        return configuration
    }

    // MARK: Files

    private static func invalid(_ message: String) -> CloudError {
        CloudError(.invalidArguments, message)
    }

    private static func certificates(_ path: String, parameter: String) throws -> [NIOSSLCertificate] {
        let bytes = try read(path, parameter: parameter)
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(bytes)
        } catch {
            throw invalid("\(parameter): \(path) is not a PEM certificate file")
        }
        guard !certificates.isEmpty else { throw invalid("\(parameter): \(path) holds no PEM certificate") }
        return certificates
    }

    /// The key, refused (as libpq refuses it) when others may read it.
    private static func privateKey(_ path: String) throws -> NIOSSLPrivateKey {
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path),
           let permissions = (attributes[.posixPermissions] as? NSNumber)?.uint16Value,
           let owner = (attributes[.ownerAccountID] as? NSNumber)?.uint32Value {
            // Owned by root, group read is allowed (a key shared with a service group); else owner only.
            let forbidden: UInt16 = owner == 0 && getuid() != 0 ? 0o037 : 0o077
            if permissions & forbidden != 0 {
                throw invalid("sslkey: \(path) may be read by others (mode \(String(permissions & 0o777, radix: 8))); "
                              + "make it u=rw (0600) or less")
            }
        }
        let bytes = try read(path, parameter: "sslkey")
        do {
            return try NIOSSLPrivateKey(bytes: bytes, format: .pem)
        } catch {
            throw invalid("sslkey: \(path) is not an unencrypted PEM private key")
        }
    }

    private static func read(_ path: String, parameter: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw invalid("\(parameter): \(path) \(reason)")
        }
        return Array(data)
    }
}
