import Foundation
import GRDB
import Testing
@testable import LocalCloud

/// `field == value` sorted on another indexed field: a value few records have seeks the filter's
/// index and sorts the matches; a common one walks the sort index in order (no sort step).
/// Before the store probed the filter, a value no record has walked the whole `name` index.
@Suite struct EqualityFilterPlanTests {
    let cloud = TestCloud()
    let container: Container
    /// Past ``SQLQueryPlan/fewFieldMatchesLimit``, so Cafe counts as common.
    let count = 1_100

    init() async throws {
        container = cloud.container(user: "alice", checksIndexes: true)
        for batch in stride(from: 0, to: count, by: 275) {
            let records = (batch..<batch + 275).map { i in
                let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "r\(i)"))
                // Names out of row order, so a walk of the name index and a row-order walk differ.
                record["name"] = "Restaurant \((i * 7919) % count)"
                // Cafe: 550 records; Ramen: 3; Thai: none.
                record["type"] = i % 2 == 0 ? "Cafe" : (i % 400 == 1 ? "Ramen" : "Tea")
                return record
            }
            _ = try await container.publicCloudDatabase.modifyRecords(saving: records, deleting: [])
        }
        try await container.updateSchema { schema in
            try schema.setIndex(.queryable, true, type: "Restaurant", field: "recordName")
            try schema.setIndex(.queryable, true, type: "Restaurant", field: "type")
            try schema.setIndex(.sortable, true, type: "Restaurant", field: "name")
            try schema.setIndex(.sortable, true, type: "Restaurant", field: "createdTimestamp")
        }
    }

    var database: LocalCloud.Database { container.publicCloudDatabase }

    func query(type: String, ascending: Bool = true) -> Query {
        let query = Query(recordType: "Restaurant", predicate: Predicate(format: "type == %@", type))
        query.sortDescriptors = [SortDescriptor(key: "name", ascending: ascending)]
        return query
    }

    /// The plan lines of the SQL the store runs for the first page, and for the page after its
    /// cursor when there is one.
    func plans(_ query: Query, pageSize: Int = 2) async throws -> (first: [String], next: [String]?, fewMatches: Bool) {
        let store = try await container.core.sqliteStore()
        let first = try QueryRequest(query: query, zoneID: .default, limit: pageSize, desiredKeys: nil)
        let page = try await store.queryRecords(first, context: database.context)
        func lines(_ request: QueryRequest) async throws -> ([String], Bool) {
            let planned = try await store.plannedQuery(request, context: database.context)
            let lines = try await store.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + planned.plan.sql, arguments: planned.plan.arguments)
                    .map { $0["detail"] as String }
            }
            return (lines, planned.fewMatches)
        }
        let (firstLines, few) = try await lines(first)
        var next: [String]?
        if let cursor = page.cursor { next = try await lines(QueryRequest(cursor: cursor, limit: pageSize, desiredKeys: nil)).0 }
        return (firstLines, next, few)
    }

    /// Every page of the query through the public API.
    func allNames(_ query: Query, pageSize: Int) async throws -> [String] {
        var (results, cursor) = try await database.records(matching: query, resultsLimit: pageSize)
        var names = try results.map { try $0.1.get()["name"] as? String ?? "" }
        while let next = cursor {
            (results, cursor) = try await database.records(continuingMatchFrom: next, resultsLimit: pageSize)
            names += try results.map { try $0.1.get()["name"] as? String ?? "" }
            guard names.count <= count else { break }
        }
        return names
    }

    func expectedNames(type: String, ascending: Bool) async throws -> [String] {
        let store = try await container.core.sqliteStore()
        let direction = ascending ? "ASC" : "DESC"
        return try await store.read { db in
            try String.fetchAll(db, sql: """
                SELECT json_extract(fields, '$."name".v') FROM records
                WHERE record_type = 'Restaurant' AND json_extract(fields, '$."type".v') = ?
                ORDER BY json_extract(fields, '$."name".v') \(direction), id \(direction)
                """, arguments: [type])
        }
    }

    @Test(arguments: ["Thai", "Ramen"])
    func rareValueSeeksTheFilterIndex(type: String) async throws {
        for ascending in [true, false] {
            let query = query(type: type, ascending: ascending)
            let plans = try await plans(query)
            #expect(plans.fewMatches)
            for lines in [plans.first] + (plans.next.map { [$0] } ?? []) {
                let text = lines.joined(separator: "\n")
                #expect(lines.contains { $0.contains("INDEX lc_ix_f_type (") || $0.contains("INDEX lc_ix_fc_type (") }, "\(text)")
                #expect(!text.contains("lc_ix_f_name"), "\(text)")
            }
            #expect((type == "Ramen") == (plans.next != nil))
            let names = try await allNames(query, pageSize: 2)
            await #expect(names == (try expectedNames(type: type, ascending: ascending)))
            #expect(names.count == (type == "Ramen" ? 3 : 0))
        }
    }

    @Test func commonValueWalksTheSortIndex() async throws {
        for ascending in [true, false] {
            let query = query(type: "Cafe", ascending: ascending)
            let plans = try await plans(query)
            #expect(!plans.fewMatches)
            for lines in [plans.first, try #require(plans.next)] {
                let text = lines.joined(separator: "\n")
                #expect(lines.contains { $0.contains("INDEX lc_ix_f_name (") }, "\(text)")
                #expect(!text.contains("TEMP B-TREE"), "\(text)")
            }
            let names = try await allNames(query, pageSize: 100)
            await #expect(names == (try expectedNames(type: "Cafe", ascending: ascending)))
            #expect(names.count == count / 2)
        }
    }

    /// `(…, type, created_at)` already answers both; no probe, and no sort step.
    @Test func creationDateSortNeedsNoProbe() async throws {
        let query = Query(recordType: "Restaurant", predicate: Predicate(format: "type == %@", "Thai"))
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
        let plans = try await plans(query)
        #expect(!plans.fewMatches)
        #expect(plans.first.contains { $0.contains("INDEX lc_ix_fc_type (") }, "\(plans.first)")
    }
}
