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
                     "postgresql://lc@db/foodpin?sslmode=require"] {
            #expect(throws: CloudError.self) { try PostgresURL(text, environment: [:]) }
        }
    }
}
