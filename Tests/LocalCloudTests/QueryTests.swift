import Foundation
import GRDB
import Testing
@testable import LocalCloud

/// The PredicateNode → SQL compiler and keyset paging, run against a real store.
@Suite struct QueryTests {
    let cloud = TestCloud()
    let container: Container
    let db: Database

    init() {
        container = cloud.container()
        db = container.publicCloudDatabase
    }

    func seed() async throws {
        let rows: [(String, String, Int64, Double, Bool, [String], Location)] = [
            ("Café Deadend", "Cafe", 4, 12.5, true, ["coffee", "cake"], Location(latitude: 22.2819, longitude: 114.1582)),
            ("Homei", "Cafe", 3, 8.0, false, ["tea"], Location(latitude: 22.2840, longitude: 114.1556)),
            ("Teakha", "Tea House", 5, 9.5, true, ["tea", "cake"], Location(latitude: 22.2850, longitude: 114.1500)),
            ("Cafe Loisl", "Austrian", 2, 20.0, true, [], Location(latitude: 48.2082, longitude: 16.3738)),
            ("Petite Oyster", "French", 5, 45.0, false, ["oyster"], Location(latitude: 48.8566, longitude: 2.3522)),
        ]
        for (i, row) in rows.enumerated() {
            let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "r\(i)"))
            record["name"] = row.0
            record["type"] = row.1
            record["rating"] = row.2
            record["price"] = row.3
            record["open"] = row.4
            record["tags"] = row.5
            record["location"] = row.6
            record["since"] = Date(timeIntervalSince1970: 1_000_000 * Double(i))
            _ = try await db.save(record)
        }
        let other = Record(recordType: "Review")
        other["name"] = "Café Deadend review"
        _ = try await db.save(other)
    }

    func names(_ node: PredicateNode, sort: [QuerySortKey] = [QuerySortKey(key: "name", ascending: true)]) async throws -> [String] {
        let page = try await container.core.sqliteStore().queryRecords(
            QueryRequest(recordType: "Restaurant", predicate: node, sort: sort, limit: 100), context: db.context)
        return page.records.compactMap { $0["name"] as? String }
    }

    @Test func comparisonsOnUserFields() async throws {
        try await seed()
        await #expect(try names(.comparison(.field("rating"), .equal, .int64(5))) == ["Petite Oyster", "Teakha"])
        await #expect(try names(.comparison(.field("rating"), .notEqual, .int64(5))).count == 3)
        await #expect(try names(.comparison(.field("rating"), .less, .int64(3))) == ["Cafe Loisl"])
        await #expect(try names(.comparison(.field("rating"), .lessOrEqual, .int64(3))) == ["Cafe Loisl", "Homei"])
        await #expect(try names(.comparison(.field("price"), .greater, .double(20))) == ["Petite Oyster"])
        await #expect(try names(.comparison(.field("price"), .greaterOrEqual, .double(20))) == ["Cafe Loisl", "Petite Oyster"])
        await #expect(try names(.comparison(.field("type"), .equal, .string("Cafe"))) == ["Café Deadend", "Homei"])
        await #expect(try names(.comparison(.field("open"), .equal, .bool(false))) == ["Homei", "Petite Oyster"])
        await #expect(try names(.comparison(.field("since"), .greaterOrEqual, .date(Date(timeIntervalSince1970: 3_000_000)))) == ["Cafe Loisl", "Petite Oyster"])
        await #expect(try names(.comparison(.field("missing"), .equal, .string("x"))).isEmpty)
    }

    @Test func comparisonsOnSystemFields() async throws {
        let before = Date()
        try await seed()
        await #expect(try names(.comparison(.recordName, .equal, .string("r1"))) == ["Homei"])
        await #expect(try names(.comparison(.recordName, .equal, .reference(.init(recordID: .init(recordName: "r2"), action: .none)))) == ["Teakha"])
        await #expect(try names(.comparison(.creationDate, .greaterOrEqual, .date(before.addingTimeInterval(-1)))).count == 5)
        await #expect(try names(.comparison(.creationDate, .less, .date(before.addingTimeInterval(-1)))).isEmpty)
        await #expect(try names(.comparison(.modificationDate, .greater, .date(before.addingTimeInterval(-1)))).count == 5)
        let me = Record.Reference(recordID: Record.ID(recordName: "_alice"), action: .none)
        await #expect(try names(.comparison(.creatorUserRecordID, .equal, .reference(me))).count == 5)
        await #expect(try names(.comparison(.lastModifiedUserRecordID, .equal, .string("_bob"))).isEmpty)
    }

    @Test func betweenBeginsWithInAndListContains() async throws {
        try await seed()
        await #expect(try names(.between(.field("price"), .double(9), .double(20))) == ["Cafe Loisl", "Café Deadend", "Teakha"])
        await #expect(try names(.beginsWith(.field("name"), "Caf")) == ["Cafe Loisl", "Café Deadend"])
        await #expect(try names(.beginsWith(.field("name"), "Café")) == ["Café Deadend"])
        await #expect(try names(.in(.field("type"), [.string("French"), .string("Austrian")])) == ["Cafe Loisl", "Petite Oyster"])
        await #expect(try names(.in(.field("type"), [])).isEmpty)
        await #expect(try names(.in(.recordName, [.string("r0"), .string("r4")])) == ["Café Deadend", "Petite Oyster"])
        await #expect(try names(.listContains(.field("tags"), .string("cake"))) == ["Café Deadend", "Teakha"])
        await #expect(try names(.not(.in(.field("type"), [.string("Cafe")]))) == ["Cafe Loisl", "Petite Oyster", "Teakha"])
        await #expect(try names(.and([.comparison(.field("open"), .equal, .bool(true)), .comparison(.field("rating"), .greaterOrEqual, .int64(4))]))
                == ["Café Deadend", "Teakha"])
        await #expect(try names(.truePredicate).count == 5)
        await #expect(try names(.falsePredicate).isEmpty)
    }

    @Test func fullTextIsTokenizedCaseAndDiacriticInsensitive() async throws {
        try await seed()
        // "Cafe" is also Homei's type: every string field is searched.
        await #expect(try names(.textSearch("cafe")) == ["Cafe Loisl", "Café Deadend", "Homei"])
        await #expect(try names(.textSearch("CAFÉ")) == ["Cafe Loisl", "Café Deadend", "Homei"])
        await #expect(try names(.textSearch("deadend cafe")) == ["Café Deadend"])
        await #expect(try names(.textSearch("oyster")) == ["Petite Oyster"])
        await #expect(try names(.textSearch("Caf")).isEmpty)
        await #expect(try names(.textSearch("\"; DROP TABLE records; --")).isEmpty)
        await #expect(try names(.textSearch("  ")).isEmpty)
        // Updating a record updates its text.
        let record = try await db.record(for: Record.ID(recordName: "r1"))
        record["name"] = "Renamed Bakery"
        _ = try await db.save(record)
        await #expect(try names(.textSearch("homei")).isEmpty)
        await #expect(try names(.textSearch("bakery")) == ["Renamed Bakery"])
    }

    @Test func distanceFilterAndLocationSort() async throws {
        try await seed()
        let central = Location(latitude: 22.2830, longitude: 114.1580)
        await #expect(try names(.distance(.field("location"), central, .less, kilometres: 2)) == ["Café Deadend", "Homei", "Teakha"])
        await #expect(try names(.distance(.field("location"), central, .greater, kilometres: 2000)) == ["Cafe Loisl", "Petite Oyster"])
        let vienna = Location(latitude: 48.2, longitude: 16.37)
        let sorted = try await names(.truePredicate, sort: [QuerySortKey(key: "location", ascending: true, location: vienna)])
        #expect(sorted.first == "Cafe Loisl")
        #expect(sorted.dropFirst().first == "Petite Oyster")
    }

    @Test func rejectedFormsAreInvalidArgumentsAndNeverReachSQL() async throws {
        try await seed()
        for node: PredicateNode in [
            .comparison(.field("name'); DROP TABLE records; --"), .equal, .string("x")),
            .comparison(.field("location"), .equal, .location(Location(latitude: 0, longitude: 0))),
            .comparison(.field("tags"), .equal, .list([.string("a")])),
            .distance(.field("location"), Location(latitude: 0, longitude: 0), .equal, kilometres: 1),
            .listContains(.creationDate, .string("x")),
        ] {
            await #expect { try await names(node) } throws: { ($0 as? CloudError)?.code == .invalidArguments }
        }
        await #expect(try names(.truePredicate).count == 5)
        await #expect { try await names(.truePredicate, sort: [QuerySortKey(key: "bad key", ascending: true)]) } throws: {
            ($0 as? CloudError)?.code == .invalidArguments
        }
    }

    @Test func valuesAreBoundNotSpliced() throws {
        let request = QueryRequest(recordType: "Restaurant", predicate: .comparison(.field("name"), .equal, .string("O'Brien\"; --")),
                                   sort: [], limit: 10)
        let plan = try SQLQueryPlan.compile(request, context: db.context)
        #expect(!plan.sql.contains("O'Brien"))
        #expect(plan.arguments.description.contains("Brien"))
    }

    @Test func sortingOnUserFieldsPagesThroughMissingValuesExactlyOnce() async throws {
        for i in 0..<23 {
            let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "n\(i)"))
            record["name"] = "n\(i)"
            if i % 3 != 0 { record["rating"] = Int64(i % 4) }
            record["type"] = i % 2 == 0 ? "A" : "B"
            _ = try await db.save(record)
        }
        let store = try await container.core.sqliteStore()
        for sort in [
            [QuerySortKey(key: "rating", ascending: true)],
            [QuerySortKey(key: "rating", ascending: false)],
            [QuerySortKey(key: "type", ascending: true), QuerySortKey(key: "rating", ascending: false)],
            [QuerySortKey(key: "type", ascending: false), QuerySortKey(key: "creationDate", ascending: true)],
        ] {
            let all = try await store.queryRecords(QueryRequest(recordType: "Restaurant", predicate: .truePredicate, sort: sort, limit: 400),
                                             context: db.context).records.map(\.recordID.recordName)
            #expect(all.count == 23)
            var paged: [String] = []
            var page = try await store.queryRecords(QueryRequest(recordType: "Restaurant", predicate: .truePredicate, sort: sort, limit: 4),
                                              context: db.context)
            paged += page.records.map(\.recordID.recordName)
            while let cursor = page.cursor {
                page = try await store.queryRecords(QueryRequest(cursor: cursor, limit: 4, desiredKeys: nil), context: db.context)
                paged += page.records.map(\.recordID.recordName)
            }
            #expect(paged == all, "sort \(sort)")
        }
    }

    @Test func pagingUnderConcurrentInsertsReturnsEveryRecordOnceInOrder() async throws {
        let original = (0..<60).map { restaurant("old\($0)") }
        _ = try await db.modifyRecords(saving: original, deleting: [])
        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: true)]
        let writer = Task {
            for i in 0..<40 { _ = try await db.save(restaurant("new\(i)")) }
        }
        var seen: [Record] = []
        var (matches, cursor) = try await db.records(matching: query, resultsLimit: 7)
        seen += matches.compactMap { try? $0.1.get() }
        while let next = cursor {
            (matches, cursor) = try await db.records(continuingMatchFrom: next, resultsLimit: 7)
            seen += matches.compactMap { try? $0.1.get() }
            if cursor == nil { try await writer.value }
        }
        try await writer.value
        let ids = seen.map(\.recordID.recordName)
        #expect(Set(ids).count == ids.count, "no duplicates")
        #expect(Set(original.map(\.recordID.recordName)).isSubset(of: Set(ids)), "every record present at the start is returned")
        let dates = seen.compactMap(\.creationDate)
        #expect(dates == dates.sorted(), "in sort order")

        // Newest first: records inserted during paging are newer than the anchor, so never duplicated or skipped.
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
        let before = try await db.records(matching: query, resultsLimit: 400).matchResults.count
        var newest: [String] = []
        (matches, cursor) = try await db.records(matching: query, resultsLimit: 9)
        newest += matches.map(\.0.recordName)
        while let next = cursor {
            _ = try await db.save(restaurant("during"))
            (matches, cursor) = try await db.records(continuingMatchFrom: next, resultsLimit: 9)
            newest += matches.map(\.0.recordName)
        }
        #expect(newest.count == before)
        #expect(Set(newest).count == before)
    }

    @Test func listMatchesOnAFieldTheSchemaSaysIsNotAListAreRefused() async throws {
        let record = restaurant("Porto")
        record["tags"] = ["fish", "wine"]
        _ = try await db.save(record)
        for format in ["name CONTAINS 'Porto'", "ANY name IN {'Porto', 'Lisboa'}", "ANY name BEGINSWITH 'Po'",
                       "NOT (name CONTAINS 'Porto')"] {
            let query = Query(recordType: "Restaurant", predicate: LocalCloud.Predicate(format: format))
            await #expect { _ = try await db.records(matching: query) } throws: { error in
                let error = error as? CloudError
                return error?.code == .invalidArguments && error?.message.hasPrefix("Field 'name' is a STRING, not a list") == true
            }
        }
        let tags = Query(recordType: "Restaurant", predicate: LocalCloud.Predicate(format: "tags CONTAINS 'wine'"))
        #expect(try await db.records(matching: tags).matchResults.count == 1, "a list field still matches")
    }

    @Test func maximumResultsLimitIsTheLargestPageAQueryMayAskFor() async throws {
        _ = try await db.modifyRecords(saving: (0..<3).map { restaurant("m\($0)") }, deleting: [])
        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        let page = try await db.records(matching: query, resultsLimit: QueryOperation.maximumResultsLimit)
        #expect(page.matchResults.count == 3 && page.queryCursor == nil)
        await #expect { _ = try await db.records(matching: query, resultsLimit: QueryOperation.maximumResultsLimit + 1) }
            throws: { ($0 as? CloudError)?.code == .limitExceeded }
    }

    @Test func cursorsSerializeAndResume() async throws {
        _ = try await db.modifyRecords(saving: (0..<10).map { restaurant("c\($0)") }, deleting: [])
        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
        let (first, cursor) = try await db.records(matching: query, resultsLimit: 4)
        let data = try JSONEncoder().encode(try #require(cursor))
        let restored = try JSONDecoder().decode(Query.Cursor.self, from: data)
        #expect(restored == cursor)
        let (second, _) = try await db.records(continuingMatchFrom: restored, resultsLimit: 100)
        #expect(first.count == 4 && second.count == 6)
        #expect(Set(first.map(\.0)).isDisjoint(with: Set(second.map(\.0))))
        #expect(throws: (any Error).self) { try JSONDecoder().decode(Query.Cursor.self, from: Data("{\"junk\":1}".utf8)) }
    }

    @Test func queriesRunInOneZoneAndOneType() async throws {
        try await seed()
        let query = Query(recordType: "Review", predicate: Predicate(value: true))
        let (matches, cursor) = try await db.records(matching: query)
        #expect(matches.count == 1 && cursor == nil)
        let privateDB = container.privateCloudDatabase
        let zone = try await privateDB.save(RecordZone(zoneName: "Trips"))
        let inZone = Record(recordType: "Restaurant", zoneID: zone.zoneID)
        inZone["name"] = "zoned"
        _ = try await privateDB.save(inZone)
        _ = try await privateDB.save(restaurant("default zone"))
        let q = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        let zoned = try await privateDB.records(matching: q, inZoneWith: zone.zoneID).matchResults.map(\.0.recordName)
        #expect(zoned == [inZone.recordID.recordName])
        #expect(try await privateDB.records(matching: q).matchResults.count == 1)
    }

    @Test func discoverQueryUsesAnIndexRangeScan() async throws {
        _ = try await db.modifyRecords(saving: (0..<60).map { restaurant("d\($0)") }, deleting: [])
        let store = try await container.core.sqliteStore()
        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
        var request = try QueryRequest(query: query, zoneID: .default, limit: 50, desiredKeys: ["name", "type", "location"])
        let firstPage = try await store.queryRecords(request, context: db.context)
        request = QueryRequest(cursor: try #require(firstPage.cursor), limit: 50, desiredKeys: ["name", "type", "location"])
        for plan in [try SQLQueryPlan.compile(try QueryRequest(query: query, zoneID: .default, limit: 50, desiredKeys: nil), context: db.context),
                     try SQLQueryPlan.compile(request, context: db.context)] {
            let details = try await store.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + plan.sql, arguments: plan.arguments).map { $0["detail"] as String }
            }
            let text = details.joined(separator: "\n")
            #expect(text.contains("USING INDEX records_by_type_created"), "\(text)")
            #expect(!text.contains("SCAN"), "\(text)")
            #expect(!text.contains("TEMP B-TREE"), "\(text)")
        }
        #expect(plan(for: request).contains("(r.created_at, r.id) < (?, ?)"))
    }

    func plan(for request: QueryRequest) -> String {
        (try? SQLQueryPlan.compile(request, context: db.context).sql) ?? ""
    }
}
