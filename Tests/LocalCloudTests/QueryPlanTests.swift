import Foundation
import GRDB
import Testing
@testable import LocalCloud

/// The common query shapes are index range scans with no sort step, on the first page and on a
/// cursor page (proved with `EXPLAIN QUERY PLAN`), and paging by cursor returns every matching
/// record exactly once, in the order a plain SQL `ORDER BY` gives.
@Suite struct QueryPlanTests {
    let cloud = TestCloud()
    let container: Container
    let types = ["Thai", "Cafe", "Tea", "Noodles", "Ramen"]
    let count = 150

    init() async throws {
        container = cloud.container(user: "alice", checksIndexes: true)
        // Several batches, so creation dates differ between some records and tie within others.
        for batch in 0..<3 {
            let records = (0..<count / 3).map { j in
                let i = batch * (count / 3) + j
                let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "r\(i)"))
                record["name"] = "Restaurant \(i)"
                // Ramen is rare: 3 records.
                record["type"] = i % 50 == 7 ? "Ramen" : types[i % 4]
                record["description"] = i % 25 == 0 ? "hand-pulled noodles" : "coffee and cake"
                return record
            }
            _ = try await container.publicCloudDatabase.modifyRecords(saving: records, deleting: [])
        }
        try await container.updateSchema { schema in
            try schema.setIndex(.queryable, true, type: "Restaurant", field: "recordName")
            try schema.setIndex(.queryable, true, type: "Restaurant", field: "type")
            try schema.setIndex(.searchable, true, type: "Restaurant", field: "description")
            try schema.setIndex(.sortable, true, type: "Restaurant", field: "createdTimestamp")
            try schema.setIndex(.sortable, true, type: "Restaurant", field: "modifiedTimestamp")
        }
    }

    var database: LocalCloud.Database { container.publicCloudDatabase }

    func query(_ predicate: LocalCloud.Predicate, sort: [LocalCloud.SortDescriptor] = []) -> Query {
        let query = Query(recordType: "Restaurant", predicate: predicate)
        query.sortDescriptors = sort
        return query
    }

    /// The plan lines of the first page's SQL and of the SQL for the page after its cursor.
    func plans(_ query: Query, pageSize: Int = 2) async throws -> [[String]] {
        let store = try await container.core.sqliteStore()
        let first = try QueryRequest(query: query, zoneID: .default, limit: pageSize, desiredKeys: nil)
        let page = try await store.queryRecords(first, context: database.context)
        let next = QueryRequest(cursor: try #require(page.cursor, "the query needs a second page"), limit: pageSize, desiredKeys: nil)
        var plans: [[String]] = []
        for request in [first, next] {
            let plan = try SQLQueryPlan.compile(request, context: database.context)
            plans.append(try await store.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + plan.sql, arguments: plan.arguments).map { $0["detail"] as String }
            })
        }
        return plans
    }

    /// No full scan of `records` and no sort step.
    func expectIndexed(_ lines: [String], using index: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let text = lines.joined(separator: "\n")
        #expect(lines.contains { $0.contains("USING INDEX \(index) (") || $0.contains("USING COVERING INDEX \(index) (") },
                "\(text)", sourceLocation: sourceLocation)
        #expect(!lines.contains { $0 == "SCAN r" || $0.hasPrefix("SCAN r ") }, "\(text)", sourceLocation: sourceLocation)
        #expect(!text.contains("TEMP B-TREE"), "\(text)", sourceLocation: sourceLocation)
    }

    /// Every page of the query, `pageSize` at a time, through the public API.
    func allNames(_ query: Query, pageSize: Int = 7) async throws -> [String] {
        var (results, cursor) = try await database.records(matching: query, resultsLimit: pageSize)
        var names = results.map(\.0.recordName)
        var pages = 1
        while let next = cursor {
            (results, cursor) = try await database.records(continuingMatchFrom: next, resultsLimit: pageSize)
            #expect(!results.isEmpty, "a cursor is only given when more records follow")
            names += results.map(\.0.recordName)
            pages += 1
            guard pages < 1000 else { break }
        }
        return names
    }

    /// The same records straight from SQLite, for comparison.
    func expectedNames(where condition: String = "1", orderBy: String) async throws -> [String] {
        try await container.core.sqliteStore().read { db in
            try String.fetchAll(db, sql: "SELECT record_name FROM records WHERE record_type = 'Restaurant' AND (\(condition)) ORDER BY \(orderBy)")
        }
    }

    @Test func unsortedQueryWalksRecordsByTypeInRowOrder() async throws {
        let query = query(Predicate(value: true))
        let plans = try await plans(query)
        for lines in plans { expectIndexed(lines, using: "records_by_type") }
        // The cursor page seeks to the anchor's row ID.
        #expect(plans[1].contains { $0.contains("rowid>?") }, "\(plans[1])")

        let (one, _) = try await database.records(matching: query, resultsLimit: 1)
        let expected = try await expectedNames(orderBy: "id")
        #expect(one.map(\.0.recordName) == Array(expected.prefix(1)))
        let names = try await allNames(query)
        #expect(names == expected)
        #expect(names.count == count && Set(names).count == count)
    }

    @Test func equalityOnQueryableFieldKeepsRowOrder() async throws {
        let query = query(Predicate(format: "type == %@", "Tea"))
        let plans = try await plans(query)
        for lines in plans { expectIndexed(lines, using: "lc_ix_f_type") }
        #expect(plans[1].contains { $0.contains("rowid>?") }, "\(plans[1])")
        let names = try await allNames(query)
        await #expect(names == (try expectedNames(where: #"json_extract(fields, '$."type".v') = 'Tea'"#, orderBy: "id")))
        #expect(names.count > 30)
    }

    @Test func equalityOnQueryableFieldSortedByCreationDate() async throws {
        for ascending in [false, true] {
            for type in ["Cafe", "Ramen"] {
                let query = query(Predicate(format: "type == %@", type), sort: [SortDescriptor(key: "creationDate", ascending: ascending)])
                let plans = try await plans(query)
                for lines in plans { expectIndexed(lines, using: "lc_ix_fc_type") }
                #expect(plans[1].contains { $0.contains(ascending ? "created_at>?" : "created_at<?") }, "\(plans[1])")
                let direction = ascending ? "ASC" : "DESC"
                let names = try await allNames(query, pageSize: 2)
                await #expect(names == (try expectedNames(where: #"json_extract(fields, '$."type".v') = '\#(type)'"#,
                                                    orderBy: "created_at \(direction), id \(direction)")))
                #expect(type == "Ramen" ? names.count == 3 : names.count > 30)
            }
        }
    }

    @Test func recordNameInProbesTheUniqueKey() async throws {
        let wanted = ["r120", "r3", "r77", "r5", "missing"]
        let query = query(Predicate(format: "recordName IN %@", wanted.map { Record.ID(recordName: $0) }))
        let plans = try await plans(query)
        for lines in plans {
            expectIndexed(lines, using: "sqlite_autoindex_records_1")
            // The outer query seeks each row ID, never walks the type.
            #expect(lines.contains { $0.contains("rowid=?") }, "\(lines)")
        }
        #expect(try await allNames(query, pageSize: 2) == (try expectedNames(where: "record_name IN ('r3', 'r5', 'r77', 'r120')", orderBy: "id")))

        // The same names under NOT, and in an OR with another key, still mean what they say.
        let others = try await allNames(self.query(Predicate(format: "NOT (recordName IN %@)", wanted.map { Record.ID(recordName: $0) })), pageSize: 50)
        #expect(others.count == count - 4 && !others.contains("r3") && others.contains("r4"))
        let mixed = try await allNames(self.query(Predicate(format: "recordName IN %@ AND type == 'Cafe'", wanted.map { Record.ID(recordName: $0) })))
        #expect(Set(mixed) == ["r5", "r77"])
    }

    @Test func sortByModificationDateUsesItsIndex() async throws {
        for ascending in [false, true] {
            let query = query(Predicate(value: true), sort: [SortDescriptor(key: "modificationDate", ascending: ascending)])
            let plans = try await plans(query)
            for lines in plans { expectIndexed(lines, using: "lc_ix_s_modified_at") }
            let direction = ascending ? "ASC" : "DESC"
            #expect(try await allNames(query, pageSize: 20) == (try expectedNames(orderBy: "modified_at \(direction), id \(direction)")))
        }
    }

    @Test func textSearchSeeksEachMatchInRowOrder() async throws {
        let query = query(Predicate(format: "self CONTAINS %@", "noodles"))
        let plans = try await plans(query)
        for lines in plans {
            expectIndexed(lines, using: "records_by_type")
            #expect(lines.contains { $0.contains("records_fts VIRTUAL TABLE INDEX") }, "\(lines)")
            #expect(lines.contains { $0.contains("rowid=?") }, "\(lines)")
        }
        let names = try await allNames(query, pageSize: 2)
        await #expect(names == (try expectedNames(where: "record_name IN ('r0', 'r25', 'r50', 'r75', 'r100', 'r125')", orderBy: "id")))
        #expect(names.count == 6)
    }

    @Test func textSearchSortedByCreationDateSortsOnlyTheMatches() async throws {
        let query = query(Predicate(format: "self CONTAINS %@", "noodles"), sort: [SortDescriptor(key: "creationDate", ascending: false)])
        let plans = try await plans(query)
        for lines in plans {
            // The matches are looked up by row ID and sorted; the type's records are never walked.
            #expect(lines.contains { $0.contains("USING INDEX records_by_type (") && $0.contains("rowid=?") }, "\(lines)")
            #expect(!lines.contains { $0.contains("records_by_type_created") }, "\(lines)")
            #expect(!lines.contains { $0 == "SCAN r" || $0.hasPrefix("SCAN r ") }, "\(lines)")
        }
        let names = try await allNames(query, pageSize: 2)
        await #expect(names == (try expectedNames(where: "record_name IN ('r0', 'r25', 'r50', 'r75', 'r100', 'r125')",
                                            orderBy: "created_at DESC, id DESC")))
    }

    @Test func discoverQueryStillUsesItsIndex() async throws {
        let plans = try await plans(query(Predicate(value: true), sort: [SortDescriptor(key: "creationDate", ascending: false)]))
        for lines in plans { expectIndexed(lines, using: "records_by_type_created") }
    }

    @Test func queryMigrationIsRegisteredLast() async throws {
        // The sharing migrations (an index, the deleted records' parents) may follow; the query ones keep their order.
        let identifiers = SQLiteStore.migrator.migrations.filter { !$0.hasPrefix("v-sharing") }
        #expect(SQLiteStore.migrator.migrations.contains("v-sharing: shares by type"))
        #expect(SQLiteStore.migrator.migrations.contains("v-sharing 2: parents of deleted records"))
        #expect(identifiers.suffix(4) == ["v3: records by type in row order", "v4: side tables of queryable lists", "v5: full-text automerge 16",
                                          "v6: full-text segmented column and prefix index"])
        let indexes = try await container.core.sqliteStore().read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records'")
        }
        #expect(indexes.contains("records_by_type"))
        let automerge = try await container.core.sqliteStore().read { db in
            try Int.fetchOne(db, sql: "SELECT v FROM records_fts_config WHERE k = 'automerge'")
        }
        #expect(automerge == 16)
    }
}
