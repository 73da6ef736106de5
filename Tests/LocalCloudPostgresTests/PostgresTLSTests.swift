import Foundation
import LocalCloud
@testable import LocalCloudPostgres
import NIOSSL
import PostgresTestSupport
import Testing

/// The TLS settings made from a URL: files read up front with clear errors, libpq's default
/// locations, and the one line a connection failure prints. The handshakes themselves (a CA, a
/// wrong CA, a host-name mismatch, a client certificate) run against a TLS-only cluster in
/// `Tests/EndToEnd/postgres_tls.sh`.
@Suite struct PostgresTLSTests {
    /// A home directory of its own, for libpq's `~/.postgresql` defaults.
    private final class Home {
        let path: String
        init() throws {
            path = NSTemporaryDirectory() + "localcloud-tls-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: path + "/.postgresql", withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func write(_ name: String, _ text: String, mode: Int = 0o600) throws -> String {
            let file = path + "/.postgresql/" + name
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file)
            return file
        }
    }

    private func failure(_ text: String, home: Home) -> String {
        do {
            _ = try PostgresTLS(url: try PostgresURL(text, environment: [:]), home: home.path)
            return "accepted"
        } catch let error as CloudError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test func disableMakesNoTLSAndPreferWithoutACAChecksNothing() throws {
        let home = try Home()
        let off = try PostgresTLS(url: try PostgresURL("postgresql://lc@db/foodpin?sslmode=disable", environment: [:]), home: home.path)
        #expect(off.configuration == nil && off.context == nil)
        let prefer = try PostgresTLS(url: try PostgresURL("postgresql://lc@db/foodpin", environment: [:]), home: home.path)
        #expect(prefer.configuration?.certificateVerification == CertificateVerification.none)
        #expect(prefer.rootCertificate == nil)
    }

    @Test func verifyingModesNeedACAFileAndSayWhereTheyLooked() throws {
        let home = try Home()
        for mode in ["verify-ca", "verify-full"] {
            let message = failure("postgresql://lc@db/foodpin?sslmode=\(mode)", home: home)
            #expect(message.contains("root certificate file \"\(home.path)/.postgresql/root.crt\" does not exist"), "\(message)")
            #expect(message.contains("sslrootcert=system"))
        }
        let missing = failure("postgresql://lc@db/foodpin?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem", home: home)
        #expect(missing == "sslrootcert: /nonexistent/ca.pem does not exist")
        let notPEM = try home.write("junk.pem", "not a certificate")
        #expect(failure("postgresql://lc@db/foodpin?sslmode=verify-ca&sslrootcert=\(notPEM)", home: home).contains("is not a PEM certificate"))
    }

    @Test func theDefaultCAFileIsUsedWhenItExistsAsLibpqDoes() throws {
        let home = try Home()
        let ca = try home.write("root.crt", try Self.certificatePEM())
        let full = try PostgresTLS(url: try PostgresURL("postgresql://lc@db/foodpin?sslmode=verify-full", environment: [:]), home: home.path)
        #expect(full.rootCertificate == ca)
        #expect(full.configuration?.certificateVerification == .fullVerification)
        // require with a CA file checks the chain (libpq's compatibility rule), not the name.
        let require = try PostgresTLS(url: try PostgresURL("postgresql://lc@db/foodpin?sslmode=require", environment: [:]), home: home.path)
        #expect(require.configuration?.certificateVerification == .noHostnameVerification)
        let system = try PostgresTLS(url: try PostgresURL("postgresql://lc@db/foodpin?sslrootcert=system", environment: [:]), home: home.path)
        #expect(system.rootCertificate == "system")
        #expect(system.configuration?.trustRoots == .default)
    }

    @Test func aClientKeyOthersCanReadIsRefused() throws {
        let home = try Home()
        let (certificate, key) = try Self.certificateAndKeyPEM()
        let crt = try home.write("client.crt", certificate)
        let open = try home.write("client.key", key, mode: 0o644)
        let message = failure("postgresql://lc@db/foodpin?sslmode=require&sslcert=\(crt)&sslkey=\(open)", home: home)
        #expect(message.contains("may be read by others (mode 644)"), "\(message)")
        let closed = try home.write("private.key", key, mode: 0o600)
        let tls = try PostgresTLS(url: try PostgresURL("postgresql://lc@db/foodpin?sslmode=require&sslcert=\(crt)&sslkey=\(closed)",
                                                       environment: [:]), home: home.path)
        #expect(tls.configuration?.certificateChain.count == 1)
        #expect(tls.configuration?.privateKey != nil)
        #expect(failure("postgresql://lc@db/foodpin?sslmode=require&sslcert=\(crt)&sslkey=\(crt)", home: home)
                .contains("is not an unencrypted PEM private key"))
    }

    @Test(.enabled(if: !PostgresCluster.isSkipped, "LOCALCLOUD_SKIP_POSTGRES=1"))
    func againstAServerWithoutTLSPreferFallsBackAndRequireSaysWhy() async throws {
        // The test cluster runs without ssl: prefer goes on in plain text, require stops with the reason.
        var url = try await PostgresCluster.shared().makeDatabase()
        url.sslMode = .prefer
        try await PostgresPool(url: url, maximumConnections: 1).checkReachable()
        url.sslMode = .require
        let pool = PostgresPool(url: url, maximumConnections: 1)
        do {
            try await pool.checkReachable()
            Issue.record("require connected to a server without TLS")
        } catch {
            let line = PostgresPool.startupMessage(error, url: url)
            #expect(line.contains("the server does not accept TLS connections, which sslmode=require requires"), "\(line)")
            #expect(!line.contains(url.password ?? "no password"))
        }
    }

    // MARK: Certificates made with the openssl CLI

    private static func certificatePEM() throws -> String { try certificateAndKeyPEM().certificate }

    private static func certificateAndKeyPEM() throws -> (certificate: String, key: String) {
        let directory = NSTemporaryDirectory() + "localcloud-tls-cert-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                             "-keyout", directory + "/key.pem", "-out", directory + "/cert.pem", "-days", "1", "-subj", "/CN=test"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard BlockingThread.waitForExitNow(process).succeeded else { throw CloudError(.internalError, "openssl req failed") }
        return (try String(contentsOfFile: directory + "/cert.pem", encoding: .utf8),
                try String(contentsOfFile: directory + "/key.pem", encoding: .utf8))
    }
}
