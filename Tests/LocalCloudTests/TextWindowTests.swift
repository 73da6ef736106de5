import Foundation
import GRDB
import Testing
@testable import LocalCloud

/// A broad full-text search newest first asks the full-text index only for the newest records'
/// row IDs, and must still return exactly what the full plan returns when records were not
/// added in creation order (imports, clocks): the page is proved, or the full plan runs.
@Suite(.serialized) struct TextWindowTests {
    let cloud = TestCloud()
    let container: Container
    let count = SQLiteStore.textWindow + 552

    init() async throws {
        container = cloud.container(user: "alice", checksIndexes: true)
        var saved = 0
        while saved < count {
            let records = (saved..<min(count, saved + 400)).map { i in
                let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "r\(i)"))
                record["name"] = "Restaurant \(i)"
                // "tea" in the 150 oldest, 100 in the middle and the 150 newest: 400 matches, a broad search.
                let tea = i < 150 || (2000..<2100).contains(i) || i >= count - 150
                record["description"] = tea ? "green tea" : "coffee and cake"
                return record
            }
            _ = try await container.publicCloudDatabase.modifyRecords(saving: records, deleting: [])
            saved += records.count
        }
        try await container.updateSchema { schema in
            try schema.setIndex(.queryable, true, type: "Restaurant", field: "recordName")
            try schema.setIndex(.searchable, true, type: "Restaurant", field: "description")
            try schema.setIndex(.sortable, true, type: "Restaurant", field: "createdTimestamp")
        }
    }

    func names(_ text: String, pageSize: Int) async throws -> [String] {
        let query = Query(recordType: "Restaurant", predicate: .textSearch(text))
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
        let database = container.publicCloudDatabase
        var (results, cursor) = try await database.records(matching: query, resultsLimit: pageSize)
        var names = results.map(\.0.recordName)
        while let next = cursor {
            (results, cursor) = try await database.records(continuingMatchFrom: next, resultsLimit: pageSize)
            names += results.map(\.0.recordName)
        }
        return names
    }

    func expected(_ word: String) async throws -> [String] {
        try await container.core.sqliteStore().read { db in
            try String.fetchAll(db, sql: """
                SELECT record_name FROM records WHERE record_type = 'Restaurant' AND fields LIKE '%\(word)%'
                ORDER BY created_at DESC, id DESC
                """)
        }
    }

    @Test func inCreationOrder() async throws {
        for pageSize in [7, 200] {
            let names = try await names("tea", pageSize: pageSize)
            await #expect(names == (try expected("tea")))
            #expect(names.count == 400)
        }
    }

    @Test func outOfCreationOrder() async throws {
        // The middle "tea" records become the oldest of all: their high row IDs now sort last,
        // after the 150 oldest "tea" records, whose row IDs are below the window's floor.
        let store = try await container.core.sqliteStore()
        let _: Void = try await store.write { db in
            try db.execute(sql: """
                UPDATE records SET created_at = created_at - 1000000 WHERE record_name IN (\((2000..<2100).map { "'r\($0)'" }.joined(separator: ",")))
                """)
            return ((), commit: true)
        }
        for pageSize in [7, 200] {
            let names = try await names("tea", pageSize: pageSize)
            await #expect(names == (try expected("tea")), "page size \(pageSize)")
            #expect(names.count == 400)
            #expect(Array(names.suffix(100)) == (2000..<2100).reversed().map { "r\($0)" })
        }
    }
}
