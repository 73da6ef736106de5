import LocalCloud
import LocalCloudPostgres
import Testing

struct PostgresURLTests {
    @Test func connectTimeoutComesFromTheURLAndDefaultsToThreeSeconds() throws {
        let plain = try PostgresURL("postgresql://lc@db:5432/foodpin", environment: [:])
        #expect(plain.connectTimeout == .seconds(3))
        #expect(plain.description == "postgresql://lc@db:5432/foodpin")
        let short = try PostgresURL("postgresql://lc@db:5432/foodpin?connect_timeout=1.5", environment: [:])
        #expect(short.connectTimeout == .milliseconds(1500))
        #expect(short.description == "postgresql://lc@db:5432/foodpin?connect_timeout=1.5")
        // A store opened through the description keeps the same timeout.
        #expect(try PostgresURL(short.description, environment: [:]) == short)
    }

    @Test func aBadConnectTimeoutOrAnUnknownParameterIsRefused() {
        for text in ["postgresql://lc@db/foodpin?connect_timeout=0", "postgresql://lc@db/foodpin?connect_timeout=soon",
                     "postgresql://lc@db/foodpin?sslmod=require", "postgresql://lc@db/foodpin?ssl=true"] {
            #expect(throws: CloudError.self) { try PostgresURL(text, environment: [:]) }
        }
    }

    // MARK: TLS parameters

    @Test func sslModeDefaultsToPreferAsInLibpq() throws {
        let url = try PostgresURL("postgresql://lc@db:5432/foodpin", environment: [:])
        #expect(url.sslMode == .prefer)
        #expect(url.sslRootCert == nil && url.sslCert == nil && url.sslKey == nil)
        #expect(!url.description.contains("ssl"))
    }

    @Test func everyLibpqModeIsReadAndWrittenBack() throws {
        for (text, mode) in [("disable", PostgresURL.SSLMode.disable), ("prefer", .prefer), ("require", .require),
                             ("verify-ca", .verifyCA), ("verify-full", .verifyFull)] {
            let url = try PostgresURL("postgresql://lc@db:5432/foodpin?sslmode=\(text)", environment: [:])
            #expect(url.sslMode == mode)
            #expect(url.sslMode.verifiesCertificate == (mode == .verifyCA || mode == .verifyFull))
            #expect(try PostgresURL(url.description, environment: [:]) == url)
            #expect(url.description.contains("sslmode=") == (mode != .prefer))
        }
    }

    @Test func certificateFilesComeFromTheURLAndSurviveTheDescription() throws {
        let url = try PostgresURL(
            "postgresql://app:s3cret@db.example.com:6543/foodpin?sslmode=verify-full&sslrootcert=/etc/ssl/db%20ca%26more.pem"
                + "&sslcert=/home/app/.pg/client.crt&sslkey=/home/app/.pg/client.key&connect_timeout=5",
            environment: [:])
        #expect(url.host == "db.example.com" && url.port == 6543 && url.password == "s3cret")
        #expect(url.sslMode == .verifyFull)
        #expect(url.sslRootCert == "/etc/ssl/db ca&more.pem")
        #expect(url.sslCert == "/home/app/.pg/client.crt")
        #expect(url.sslKey == "/home/app/.pg/client.key")
        #expect(url.connectTimeout == .seconds(5))
        #expect(!url.description.contains("s3cret"))
        // The description is a URL that gives the same settings back (the password aside).
        var parsed = try PostgresURL(url.description, environment: [:])
        parsed.password = url.password
        #expect(parsed == url)
    }

    @Test func sslrootcertSystemMeansVerifyFull() throws {
        let url = try PostgresURL("postgresql://app@db.example.com/foodpin?sslrootcert=system", environment: [:])
        #expect(url.sslMode == .verifyFull)
        #expect(url.sslRootCert == PostgresURL.systemRootCertificates)
        #expect(try PostgresURL(url.description, environment: [:]) == url)
        // Any public CA would vouch for any name, so only verify-full is allowed with it, as libpq 16 has it.
        for mode in ["require", "verify-ca", "prefer"] {
            #expect(throws: CloudError.self) {
                try PostgresURL("postgresql://app@db.example.com/foodpin?sslrootcert=system&sslmode=\(mode)", environment: [:])
            }
        }
    }

    @Test func badTLSParametersAreRefusedWithTheReason() {
        func message(_ text: String, environment: [String: String] = [:]) -> String {
            do {
                _ = try PostgresURL(text, environment: environment)
                return "accepted"
            } catch let error as CloudError {
                #expect(error.code == .invalidArguments)
                return error.message
            } catch {
                return "\(error)"
            }
        }
        #expect(message("postgresql://lc@db/foodpin?sslmode=verify_full").contains("sslmode must be one of disable, prefer, require, verify-ca, verify-full"))
        #expect(message("postgresql://lc@db/foodpin?sslmode=allow").contains("sslmode=allow is not supported"))
        #expect(message("postgresql://lc@db/foodpin?sslmode=").contains("sslmode needs a value"))
        #expect(message("postgresql://lc@db/foodpin?sslmode=require&sslmode=disable").contains("given twice"))
        #expect(message("postgresql://lc@db/foodpin?sslcert=/c.crt").contains("sslcert and sslkey go together"))
        #expect(message("postgresql://lc@db/foodpin?sslkey=/c.key").contains("sslcert and sslkey go together"))
        #expect(message("postgresql://lc@db/foodpin?sslmode=loose", environment: ["PGPASSWORD": "hunter2"]).contains("hunter2") == false)
    }

    @Test func libpqEnvironmentVariablesApplyUnlessTheURLSaysOtherwise() throws {
        let environment = ["PGSSLMODE": "verify-ca", "PGSSLROOTCERT": "/etc/pg/ca.pem",
                           "PGSSLCERT": "/etc/pg/me.crt", "PGSSLKEY": "/etc/pg/me.key"]
        let fromEnvironment = try PostgresURL("postgresql://lc@db/foodpin", environment: environment)
        #expect(fromEnvironment.sslMode == .verifyCA)
        #expect(fromEnvironment.sslRootCert == "/etc/pg/ca.pem")
        #expect(fromEnvironment.sslCert == "/etc/pg/me.crt" && fromEnvironment.sslKey == "/etc/pg/me.key")
        let overridden = try PostgresURL("postgresql://lc@db/foodpin?sslmode=disable&sslrootcert=/other.pem", environment: environment)
        #expect(overridden.sslMode == .disable)
        #expect(overridden.sslRootCert == "/other.pem")
        #expect(throws: CloudError.self) { try PostgresURL("postgresql://lc@db/foodpin", environment: ["PGSSLMODE": "sometimes"]) }
    }
}
