import Foundation
import LocalCloud
import LocalCloudPostgres
import PostgresTestSupport
import Testing

/// The PostgreSQL store through LocalCloud's public API, on a private cluster (see ``PostgresCluster``).
@Suite(.enabled(if: !PostgresCluster.isSkipped, "LOCALCLOUD_SKIP_POSTGRES=1"))
struct PostgresStoreTests {
    @Test func savesQueriesAndFetchesThroughTheContainer() async throws {
        let fixture = try await PostgresFixture()
        let container = fixture.container(user: "alice")
        let db = container.publicCloudDatabase
        let record = Record(recordType: "Restaurant")
        record["name"] = "Café Deadend"
        record["rating"] = 4
        let saved = try await db.save(record)
        #expect(saved.recordChangeTag != nil)
        let fetched = try await db.record(for: record.recordID)
        #expect(fetched["name"] as? String == "Café Deadend")
        let page = try await db.records(matching: Query(recordType: "Restaurant", predicate: Predicate(format: "self CONTAINS 'cafe'")))
        #expect(page.matchResults.count == 1)
    }
}
