import Foundation
import GRDB
import Testing
@testable import LocalCloud

/// Each index kind is a real SQLite index, built for the records already stored when added,
/// and used by the query: proved with `EXPLAIN QUERY PLAN`.
@Suite struct SchemaIndexPlanTests {
    let cloud = TestCloud()
    let container: Container
    let types = ["Thai", "Cafe", "Tea", "Noodles"]

    init() async throws {
        container = cloud.container(user: "alice", checksIndexes: true)
        var records: [Record] = []
        for i in 0..<120 {
            let record = Record(recordType: "Restaurant")
            record["name"] = "Restaurant \(i)"
            record["type"] = types[i % types.count]
            record["description"] = i % 40 == 0 ? "hand-pulled noodles" : "coffee and cake"
            record["spot"] = Location(latitude: 22.0 + Double(i % 30) * 0.1, longitude: 114.0 + Double(i / 30) * 0.1)
            records.append(record)
        }
        _ = try await container.publicCloudDatabase.modifyRecords(saving: records, deleting: [])
        // Indexes are added after the records exist, so they must be built for them.
        try await container.updateSchema { schema in
            try schema.setIndex(.queryable, true, type: "Restaurant", field: "recordName")
            try schema.setIndex(.queryable, true, type: "Restaurant", field: "type")
            try schema.setIndex(.sortable, true, type: "Restaurant", field: "name")
            try schema.setIndex(.searchable, true, type: "Restaurant", field: "description")
            try schema.setIndex(.queryable, true, type: "Restaurant", field: "spot")
            try schema.setIndex(.sortable, true, type: "Restaurant", field: "modifiedTimestamp")
            try schema.setIndex(.queryable, true, type: "Restaurant", field: "createdBy")
        }
    }

    func request(_ predicate: LocalCloud.Predicate, sort: [LocalCloud.SortDescriptor] = []) throws -> QueryRequest {
        let query = Query(recordType: "Restaurant", predicate: predicate)
        query.sortDescriptors = sort
        return try QueryRequest(query: query, zoneID: .default, limit: 50, desiredKeys: nil)
    }

    /// The plan of the SQL the store runs for this query, one detail line each.
    func plan(_ request: QueryRequest) async throws -> String {
        let store = try await container.core.sqliteStore()
        let context = container.publicCloudDatabase.context
        let locationIndexes = try await store.read(SchemaIndexes.locationIndexes)
        let plan = try SQLQueryPlan.compile(request, context: context, locationIndexes: locationIndexes)
        return try await store.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + plan.sql, arguments: plan.arguments).map { $0["detail"] as String }
        }.joined(separator: "\n")
    }

    func names(_ request: QueryRequest) async throws -> [String] {
        let store = try await container.core.sqliteStore()
        return try await store.queryRecords(request, context: container.publicCloudDatabase.context).records.compactMap { $0["name"] as? String }
    }

    @Test func queryableFieldIsAnExpressionIndexRangeScan() async throws {
        let request = try request(Predicate(format: "type == %@", "Tea"))
        let text = try await plan(request)
        #expect(text.contains("USING INDEX lc_ix_f_type"), "\(text)")
        #expect(!text.contains("SCAN r"), "\(text)")
        await #expect(try names(request).count == 30)
        await #expect(try names(request).allSatisfy { name in Int(name.split(separator: " ")[1]).map { $0 % 4 == 2 } == true })
    }

    @Test func sortableFieldNeedsNoTempBTree() async throws {
        let request = try request(Predicate(value: true), sort: [SortDescriptor(key: "name", ascending: true)])
        let text = try await plan(request)
        #expect(text.contains("USING INDEX lc_ix_f_name"), "\(text)")
        #expect(!text.contains("TEMP B-TREE"), "\(text)")
        let sorted = try await names(request)
        #expect(sorted == sorted.sorted())
        // Descending walks the same index backwards.
        let descending = try await plan(try self.request(Predicate(value: true), sort: [SortDescriptor(key: "name", ascending: false)]))
        #expect(descending.contains("USING INDEX lc_ix_f_name") && !descending.contains("TEMP B-TREE"), "\(descending)")
    }

    @Test func systemFieldIndexes() async throws {
        let byModified = try await plan(try request(Predicate(value: true), sort: [SortDescriptor(key: "modificationDate", ascending: false)]))
        #expect(byModified.contains("USING INDEX lc_ix_s_modified_at") && !byModified.contains("TEMP B-TREE"), "\(byModified)")
        let byCreator = try request(Predicate(format: "creatorUserRecordID == %@", Record.ID(recordName: "_alice")))
        let text = try await plan(byCreator)
        #expect(text.contains("USING INDEX lc_ix_s_created_by"), "\(text)")
        await #expect(try names(byCreator).count == 50)
        let byName = try await plan(try request(Predicate(format: "recordName == %@", "x")))
        #expect(byName.contains("USING INDEX sqlite_autoindex_records_1") || byName.contains("USING INDEX"), "\(byName)")
        #expect(!byName.contains("SCAN r"), "\(byName)")
    }

    @Test func searchableIsTheFullTextIndex() async throws {
        let request = try request(Predicate(format: "self CONTAINS %@", "NOODLES"))
        let text = try await plan(request)
        #expect(text.contains("records_fts VIRTUAL TABLE INDEX"), "\(text)")
        await #expect(try names(request).count == 3, "only the SEARCHABLE description counts, not the type 'Noodles'")
    }

    @Test func queryableLocationIsAnRTree() async throws {
        let center = Location(latitude: 22.5, longitude: 114.2)
        let request = try request(Predicate(format: "distanceToLocation:fromLocation:(spot, %@) < %@", center, 15))
        let text = try await plan(request)
        #expect(text.contains("lc_rtree_spot VIRTUAL TABLE INDEX"), "\(text)")
        #expect(!text.contains("SCAN r\n") && !text.hasSuffix("SCAN r"), "\(text)")
        // The R-tree narrows; the exact distance decides, so the answer matches a brute-force check.
        let store = try await container.core.sqliteStore()
        var all = request
        all.limit = 1000
        let found = await Set(try store.queryRecords(all, context: container.publicCloudDatabase.context).records.compactMap { $0["name"] as? String })
        var expected: Set<String> = []
        for i in 0..<120 {
            let spot = Location(latitude: 22.0 + Double(i % 30) * 0.1, longitude: 114.0 + Double(i / 30) * 0.1)
            if spot.distance(from: center) / 1000 < 15 { expected.insert("Restaurant \(i)") }
        }
        #expect(!expected.isEmpty && found == expected)

        // Triggers keep the R-tree current: a moved and a deleted record.
        let db = container.publicCloudDatabase
        let near = try await #require(try store.queryRecords(all, context: db.context).records.first)
        let moved = try await db.record(for: near.recordID)
        moved["spot"] = Location(latitude: -33.9, longitude: 151.2)
        _ = try await db.save(moved)
        let second = try await #require(try store.queryRecords(all, context: db.context).records.first)
        _ = try await db.deleteRecord(withID: second.recordID)
        let after = try await store.queryRecords(all, context: db.context).records.map(\.recordID)
        #expect(after.count == expected.count - 2)
        #expect(!after.contains(near.recordID) && !after.contains(second.recordID))
        let treeRows = try await store.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM lc_rtree_spot") }
        #expect(treeRows == 119)
    }

    @Test func removingAnIndexDropsItAndTheQueryFails() async throws {
        try await container.updateSchema { try $0.setIndex(.queryable, false, type: "Restaurant", field: "type") }
        let store = try await container.core.sqliteStore()
        let present = try await store.read { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'lc_%'") }
        #expect(!present.contains("lc_ix_f_type"))
        #expect(present.contains("lc_ix_f_name"))
        let query = Query(recordType: "Restaurant", predicate: Predicate(format: "type == 'Tea'"))
        await #expect(throws: CloudError.self) { _ = try await container.publicCloudDatabase.records(matching: query) }
    }
}
