import Foundation
import GRDB
import Testing
@testable import LocalCloud

/// `self CONTAINS` sorted by creation date: a few matches are sought by row ID and sorted; many
/// matches page down `records_by_type_created` in order, one page of it, instead of looking every
/// match up and sorting them all. Either way paging returns
/// every match once, newest first (issue 13: search over 100,000 restaurants in under 30 ms).
@Suite struct TextSearchPlanTests {
    let cloud = TestCloud()
    let container: Container
    let count = 400

    init() async throws {
        container = cloud.container(user: "alice", checksIndexes: true)
        for batch in 0..<4 {
            let records = (0..<count / 4).map { j in
                let i = batch * (count / 4) + j
                let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "r\(i)"))
                record["name"] = "Restaurant \(i)"
                record["type"] = ["Cafe", "Ramen"][i % 2]
                // "noodles" is rare (8 records); "coffee" is in nearly all of them.
                record["description"] = i % 50 == 0 ? "hand-pulled noodles" : "coffee and cake"
                return record
            }
            _ = try await container.publicCloudDatabase.modifyRecords(saving: records, deleting: [])
        }
        try await container.updateSchema { schema in
            try schema.setIndex(.queryable, true, type: "Restaurant", field: "recordName")
            try schema.setIndex(.queryable, true, type: "Restaurant", field: "type")
            try schema.setIndex(.sortable, true, type: "Restaurant", field: "type")
            try schema.setIndex(.searchable, true, type: "Restaurant", field: "description")
            try schema.setIndex(.sortable, true, type: "Restaurant", field: "createdTimestamp")
        }
    }

    var database: LocalCloud.Database { container.publicCloudDatabase }

    func request(_ text: String) throws -> QueryRequest {
        let query = Query(recordType: "Restaurant", predicate: .textSearch(text))
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
        return try QueryRequest(query: query, zoneID: .default, limit: 5, desiredKeys: nil)
    }

    func plan(_ request: QueryRequest) async throws -> (large: Bool, lines: [String]) {
        let store = try await container.core.sqliteStore()
        return try await store.read { db in
            let large = try SQLQueryPlan.textMatchIsLarge(request, db)
            let plan = try SQLQueryPlan.compile(request, context: database.context, largeTextMatch: large)
            let lines = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + plan.sql, arguments: plan.arguments).map { $0["detail"] as String }
            return (large, lines)
        }
    }

    func allNames(_ text: String) async throws -> [String] {
        let query = Query(recordType: "Restaurant", predicate: .textSearch(text))
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
        var (results, cursor) = try await database.records(matching: query, resultsLimit: 7)
        var names = results.map(\.0.recordName)
        while let next = cursor {
            (results, cursor) = try await database.records(continuingMatchFrom: next, resultsLimit: 7)
            names += results.map(\.0.recordName)
        }
        return names
    }

    func expected(_ condition: String) async throws -> [String] {
        try await container.core.sqliteStore().read { db in
            try String.fetchAll(db, sql: """
                SELECT record_name FROM records WHERE record_type = 'Restaurant' AND \(condition) ORDER BY created_at DESC, id DESC
                """)
        }
    }

    @Test func fewMatchesAreSoughtByRowID() async throws {
        let (large, lines) = try await plan(try request("noodles"))
        #expect(!large)
        #expect(lines.contains { $0.contains("USING INDEX records_by_type (") && $0.contains("rowid=?") }, "\(lines)")
        let names = try await allNames("noodles")
        await #expect(names == (try expected("fields LIKE '%noodles%'")))
        #expect(names.count == 8)
    }

    @Test func manyMatchesPageDownTheSortIndex() async throws {
        let (large, lines) = try await plan(try request("coffee"))
        #expect(large)
        #expect(lines.contains { $0.contains("INDEX records_by_type_created (") }, "\(lines)")
        #expect(!lines.joined().contains("TEMP B-TREE"), "no sort of every match: \(lines)")
        let names = try await allNames("COFFEE")
        await #expect(names == (try expected("fields LIKE '%coffee%'")))
        #expect(names.count == count - 8)
    }
}
