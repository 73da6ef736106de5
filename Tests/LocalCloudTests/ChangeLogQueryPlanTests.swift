import Foundation
import GRDB
import Testing
@testable import LocalCloud

/// The change-log reads behind notifications and change tokens never scan a whole table.
@Suite struct ChangeLogQueryPlanTests {
    func plan(_ sql: String, _ arguments: StatementArguments) async throws -> String {
        let cloud = TestCloud()
        let container = cloud.container()
        for i in 0..<20 { _ = try await container.publicCloudDatabase.save(restaurant("R\(i)")) }
        let store = try await container.core.sqliteStore()
        return try await store.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments)
                .map { $0["detail"] as String? ?? "" }.joined(separator: " | ")
        }
    }

    @Test func theWatcherReadsNewRowsByRowidRange() async throws {
        let detail = try await plan(SQLiteChangeReader.changesSQL, [5])
        #expect(detail.contains("INTEGER PRIMARY KEY (rowid>?)"), "\(detail)")
        #expect(!detail.contains("SCAN"), "\(detail)")
    }

    @Test func zoneChangesUseTheZoneIndex() async throws {
        let detail = try await plan(SQLiteStore.zoneChangesSQL, [1, "", RecordZone.ID.defaultZoneName, 5])
        #expect(detail.contains("change_log_by_zone"), "\(detail)")
        #expect(!detail.contains("SCAN"), "\(detail)")
    }

    @Test func theFirstFetchWalksRecordsByRowid() async throws {
        let detail = try await plan(SQLiteStore.zoneSnapshotSQL, [1, "", RecordZone.ID.defaultZoneName, 0, 10])
        #expect(detail.contains("INTEGER PRIMARY KEY (rowid>?)"), "\(detail)")
        #expect(!detail.contains("TEMP B-TREE"), "\(detail)")
    }

    @Test func aPredicateIsCheckedOnTheOneChangedRow() async throws {
        let detail = try await plan(SQLiteChangeReader.matchPrefixSQL + "json_extract(r.fields, '$.type.v') = ?)",
                                    [1, "", RecordZone.ID.defaultZoneName, "x", "Thai"])
        #expect(detail.contains("USING INDEX sqlite_autoindex_records"), "\(detail)")
        #expect(!detail.contains("SCAN"), "\(detail)")
    }
}
