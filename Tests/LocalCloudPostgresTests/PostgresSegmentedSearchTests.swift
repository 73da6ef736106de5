import Foundation
import LocalCloud
import LocalCloudPostgres
import PostgresTestSupport
import Testing

/// Search as you type on PostgreSQL: vectors written before it lack the segmented lexemes
/// (weight B), and a store opening such a schema recomputes them once.
@Suite(.enabled(if: !PostgresCluster.isSkipped, "LOCALCLOUD_SKIP_POSTGRES=1"))
struct PostgresSegmentedSearchTests {
    func names(_ container: Container, _ text: String) async throws -> [String] {
        let query = Query(recordType: "Restaurant", predicate: .textSearch(asTyped: text))
        return try await container.publicCloudDatabase.records(matching: query).matchResults.map(\.0.recordName)
    }

    @Test func oldVectorsGainTheSegmentedLexemesOnce() async throws {
        let fixture = try await PostgresFixture()
        let container = fixture.container(user: "alice")
        for (name, title) in [("ichiran", "一蘭拉麵"), ("cafe", "Café Déjà Vu")] {
            let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: name))
            record["name"] = title
            _ = try await container.publicCloudDatabase.save(record)
        }
        #expect(try await names(container, "蘭拉") == ["ichiran"])
        let store = try await fixture.store()
        let schema = store.schema
        // As a store from before wrote them: the text as written only (weight D), and no claim.
        _ = try await store.pool.rows("UPDATE \(schema).records SET search = ts_filter(search, '{d}')")
        _ = try await store.pool.rows("DELETE FROM \(schema).change_log_meta WHERE key = 'search_segmented'")
        #expect(try await names(container, "蘭拉").isEmpty)
        #expect(try await names(container, "caf").isEmpty)
        // `self CONTAINS` reads the text as written, which was always there.
        let whole = Query(recordType: "Restaurant", predicate: .textSearch("一蘭拉麵"))
        #expect(try await container.publicCloudDatabase.records(matching: whole).matchResults.map(\.0.recordName) == ["ichiran"])

        try await store.addSegmentedSearchIfNeeded()
        #expect(try await names(container, "蘭拉") == ["ichiran"])
        #expect(try await names(container, "caf") == ["cafe"])
        let claimed = try await store.pool.rows("SELECT value FROM \(schema).change_log_meta WHERE key = 'search_segmented'")
            .map { try $0.decode(String.self) }
        #expect(claimed == ["1"])
    }
}
