import Foundation
import LocalCloud
import LocalCloudPostgres
import PostgresTestSupport
import Synchronization
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

    /// The store stamps records with the injected clock: an hour passes without a sleep.
    @Test func recordsAreStampedWithTheInjectedClock() async throws {
        let fixture = try await PostgresFixture()
        let time = Mutex(Date(timeIntervalSince1970: 1_767_225_600))
        let db = fixture.container(user: "alice", clock: WallClock { time.withLock { $0 } }).publicCloudDatabase
        let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "r"))
        record["name"] = "Café Deadend"
        let saved = try await db.save(record)
        #expect(saved.creationDate == Date(timeIntervalSince1970: 1_767_225_600))
        time.withLock { $0 += 3600 }
        saved["name"] = "Café Loftus"
        let again = try await db.save(saved)
        #expect(again.creationDate == Date(timeIntervalSince1970: 1_767_225_600))
        #expect(again.modificationDate == Date(timeIntervalSince1970: 1_767_229_200))
    }
}
