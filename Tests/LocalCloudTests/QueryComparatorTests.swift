import Foundation
import GRDB
import Testing
@testable import LocalCloud

private typealias Predicate = LocalCloud.Predicate

/// Every CloudKit Web Services comparator, through LocalCloud's predicates, against a real store:
/// with the schema's indexes (a side table for the queryable list, FTS5 over the searchable fields)
/// and without them (lists walked with `json_each`), which must agree.
@Suite struct QueryComparatorTests {
    let cloud = TestCloud()
    let container: Container
    let indexed: Bool

    static let all = ["Bourke Street Bakery", "Cafe Loisl", "Café Deadend", "Homei", "Petite Oyster", "Teakha"]

    init(indexed: Bool) async throws {
        self.indexed = indexed
        container = cloud.container(user: "alice", checksIndexes: indexed)
        let rows: [(String, String, Int64, [String]?, Location)] = [
            ("Café Deadend", "Cafe", 4, ["coffee", "cake"], Location(latitude: 22.2819, longitude: 114.1582)),
            ("Homei", "Cafe", 3, ["tea"], Location(latitude: 22.2840, longitude: 114.1556)),
            ("Teakha", "Tea House", 5, ["tea", "cake", "takeaway"], Location(latitude: 22.2850, longitude: 114.1500)),
            ("Cafe Loisl", "Austrian", 2, [], Location(latitude: 48.2082, longitude: 16.3738)),
            ("Petite Oyster", "French", 5, ["oyster", "wine"], Location(latitude: 48.8566, longitude: 2.3522)),
            ("Bourke Street Bakery", "Bakery", 4, nil, Location(latitude: -33.8886, longitude: 151.2094)),
        ]
        let records = rows.enumerated().map { i, row in
            let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "r\(i)"))
            record["name"] = row.0
            record["type"] = row.1
            record["rating"] = row.2
            if let tags = row.3 { record["tags"] = tags }
            record["location"] = row.4
            return record
        }
        _ = try await container.publicCloudDatabase.modifyRecords(saving: records, deleting: [])
        if indexed {
            _ = try await container.updateSchema { schema in
                try schema.setIndex(.queryable, true, type: "Restaurant", field: "recordName")
                for field in ["name", "type", "rating", "tags", "location"] {
                    try schema.setIndex(.queryable, true, type: "Restaurant", field: field)
                }
                try schema.setIndex(.sortable, true, type: "Restaurant", field: "name")
                try schema.setIndex(.searchable, true, type: "Restaurant", field: "name")
                try schema.setIndex(.searchable, true, type: "Restaurant", field: "type")
            }
        }
    }

    init() async throws {
        try await self.init(indexed: true)
    }

    var database: LocalCloud.Database { container.publicCloudDatabase }

    /// The names of every matching record, sorted by name, read page by page.
    fileprivate func names(_ predicate: Predicate, pageSize: Int = 100) async throws -> [String] {
        let query = Query(recordType: "Restaurant", predicate: predicate)
        query.sortDescriptors = [SortDescriptor(key: "name", ascending: true)]
        var (results, cursor) = try await database.records(matching: query, resultsLimit: pageSize)
        var names = try results.map { try $0.1.get()["name"] as? String ?? "?" }
        while let next = cursor {
            (results, cursor) = try await database.records(continuingMatchFrom: next, resultsLimit: pageSize)
            names += try results.map { try $0.1.get()["name"] as? String ?? "?" }
        }
        return names
    }

    func except(_ names: String...) -> [String] {
        Self.all.filter { !names.contains($0) }
    }

    @Test(arguments: [false, true])
    static func scalarComparators(indexed: Bool) async throws {
        let t = try await QueryComparatorTests(indexed: indexed)
        let type = Predicate.field("type"), rating = Predicate.field("rating"), name = Predicate.field("name")
        #expect(try await t.names(type == "Cafe") == ["Café Deadend", "Homei"])
        #expect(try await t.names(type != "Cafe") == t.except("Café Deadend", "Homei"))
        #expect(try await t.names(rating < 3) == ["Cafe Loisl"])
        #expect(try await t.names(rating <= 3) == ["Cafe Loisl", "Homei"])
        #expect(try await t.names(rating > 4) == ["Petite Oyster", "Teakha"])
        #expect(try await t.names(rating >= 4) == ["Bourke Street Bakery", "Café Deadend", "Petite Oyster", "Teakha"])
        #expect(try await t.names(type.in(["French", "Austrian"])) == ["Cafe Loisl", "Petite Oyster"])
        #expect(try await t.names(!type.in(["French", "Austrian"])) == t.except("Cafe Loisl", "Petite Oyster"))
        #expect(try await t.names(type.in([])).isEmpty)
        #expect(try await t.names(name.beginsWith("Caf")) == ["Cafe Loisl", "Café Deadend"])
        #expect(try await t.names(!name.beginsWith("Caf")) == t.except("Cafe Loisl", "Café Deadend"))
        // Case-sensitive, as in CloudKit.
        #expect(try await t.names(name.beginsWith("caf")).isEmpty)
        let central = Location(latitude: 22.2830, longitude: 114.1580)
        #expect(try await t.names(Predicate.field("location").distance(from: central) <= 2) == ["Café Deadend", "Homei", "Teakha"])
    }

    @Test(arguments: [false, true])
    static func listComparators(indexed: Bool) async throws {
        let t = try await QueryComparatorTests(indexed: indexed)
        let tags = Predicate.field("tags")
        #expect(try await t.names(tags.contains("cake")) == ["Café Deadend", "Teakha"])
        #expect(try await t.names(!tags.contains("cake")) == t.except("Café Deadend", "Teakha"))
        #expect(try await t.names(tags.containsAny(["cake", "wine"])) == ["Café Deadend", "Petite Oyster", "Teakha"])
        #expect(try await t.names(!tags.containsAny(["cake", "wine"])) == ["Bourke Street Bakery", "Cafe Loisl", "Homei"])
        #expect(try await t.names(tags.containsAny(["nothing", "at all"])).isEmpty)
        #expect(try await t.names(tags.containsAny([])).isEmpty)
        #expect(try await t.names(!tags.containsAny([])) == Self.all)
        #expect(try await t.names(tags.containsAll(["tea", "cake"])) == ["Teakha"])
        #expect(try await t.names(tags.containsAll(["cake", "cake"])) == ["Café Deadend", "Teakha"])
        #expect(try await t.names(!tags.containsAll(["tea", "cake"])) == t.except("Teakha"))
        #expect(try await t.names(tags.containsAll([])) == Self.all)
        #expect(try await t.names(!tags.containsAll([])).isEmpty)
        if indexed { await #expect(try t.container.core.sqliteStore().invariantViolations() == []) }
        #expect(try await t.names(tags.memberBeginsWith("ta")) == ["Teakha"])
        #expect(try await t.names(tags.memberBeginsWith("c")) == ["Café Deadend", "Teakha"])
        #expect(try await t.names(tags.memberBeginsWith("T")).isEmpty)
        #expect(try await t.names(tags.memberBeginsWith("")) == ["Café Deadend", "Homei", "Petite Oyster", "Teakha"])
        #expect(try await t.names(!tags.memberBeginsWith("c")) == t.except("Café Deadend", "Teakha"))
        // The format forms the formatter prints select the same records.
        #expect(try await t.names(Predicate(format: "ANY tags IN %@", ["cake", "wine"])) == ["Café Deadend", "Petite Oyster", "Teakha"])
        #expect(try await t.names(Predicate(format: "NOT (ALL {'tea', 'cake'} IN tags)")) == t.except("Teakha"))
        #expect(try await t.names(Predicate(format: "ANY tags BEGINSWITH 'oy'")) == ["Petite Oyster"])
    }

    @Test(arguments: [false, true])
    static func tokenComparators(indexed: Bool) async throws {
        let t = try await QueryComparatorTests(indexed: indexed)
        // Case and accents are ignored: "cafe" finds "Café", "CAFÉ" finds "Cafe".
        #expect(try await t.names(Predicate.textSearch("cafe")) == ["Cafe Loisl", "Café Deadend", "Homei"])
        #expect(try await t.names(Predicate.textSearch("CAFÉ deadend")) == ["Café Deadend"])
        #expect(try await t.names(Predicate.textSearch(anyOf: "oyster bakery")) == ["Bourke Street Bakery", "Petite Oyster"])
        #expect(try await t.names(Predicate.textSearch(anyOf: "CAFÉ, loisl")) == ["Cafe Loisl", "Café Deadend", "Homei"])
        #expect(try await t.names(Predicate.textSearch(anyOf: "deadend")) == ["Café Deadend"])
        #expect(try await t.names(Predicate.textSearch(anyOf: "Caf zzz")).isEmpty)
        #expect(try await t.names(Predicate(format: "self CONTAINS 'homei' OR self CONTAINS 'teakha'")) == ["Homei", "Teakha"])
        #expect(try await t.names(Predicate.textSearch(anyOf: "cafe oyster") && Predicate.field("rating") >= 4)
                == ["Café Deadend", "Petite Oyster"])
    }

    @Test(arguments: [false, true])
    static func cursorPagesThroughNewNodes(indexed: Bool) async throws {
        let t = try await QueryComparatorTests(indexed: indexed)
        let predicates: [Predicate] = [
            Predicate.field("tags").containsAny(["cake", "wine", "tea"]),
            !Predicate.field("tags").containsAll(["tea", "cake"]),
            Predicate.field("tags").memberBeginsWith("t"),
            Predicate.textSearch(anyOf: "cafe oyster teakha"),
        ]
        for predicate in predicates {
            let whole = try await t.names(predicate)
            #expect(whole.count >= 2, "\(predicate)")
            #expect(try await t.names(predicate, pageSize: 1) == whole, "\(predicate)")
            #expect(try await t.names(predicate, pageSize: 2) == whole, "\(predicate)")
        }
        // A cursor holding a new node survives JSON, as a server hands it to a client and back.
        let query = Query(recordType: "Restaurant", predicate: Predicate.field("tags").containsAny(["cake", "wine", "tea"]))
        query.sortDescriptors = [SortDescriptor(key: "name", ascending: true)]
        let (first, cursor) = try await t.database.records(matching: query, resultsLimit: 2)
        let encoded = try JSONEncoder().encode(try #require(cursor))
        let decoded = try JSONDecoder().decode(Query.Cursor.self, from: encoded)
        #expect(decoded == cursor)
        let (rest, end) = try await t.database.records(continuingMatchFrom: decoded, resultsLimit: 10)
        #expect(end == nil)
        let names = try (first + rest).map { try $0.1.get()["name"] as? String ?? "?" }
        #expect(names == ["Café Deadend", "Homei", "Petite Oyster", "Teakha"])
    }

    // MARK: Side table and plans

    /// The plan lines of `predicate`'s first page, compiled as the store compiles it.
    fileprivate func plan(_ predicate: Predicate, sort: [LocalCloud.SortDescriptor] = []) async throws -> [String] {
        let store = try await container.core.sqliteStore()
        let query = Query(recordType: "Restaurant", predicate: predicate)
        query.sortDescriptors = sort
        let request = try QueryRequest(query: query, zoneID: .default, limit: 10, desiredKeys: nil)
        let listIndexes = try await store.read(SchemaIndexes.listIndexes)
        let few = try await store.read { try SQLQueryPlan.listMatchesFewRows(request.predicate, listIndexes: listIndexes, $0) }
        let plan = try SQLQueryPlan.compile(request, context: database.context, listIndexes: listIndexes, fewListMatches: few)
        return try await store.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + plan.sql, arguments: plan.arguments).map { $0["detail"] as String }
        }
    }

    @Test func listComparatorsSeekTheSideTable() async throws {
        let tags = Predicate.field("tags")
        for predicate in [tags.contains("cake"), tags.containsAny(["cake", "wine"]), tags.containsAll(["tea", "cake"]),
                          tags.memberBeginsWith("ta"), !tags.containsAny(["cake", "wine"])] {
            let lines = try await plan(predicate)
            let text = lines.joined(separator: "\n")
            #expect(lines.contains { $0.hasPrefix("SEARCH lc_list_tags USING PRIMARY KEY (value") }, "\(predicate): \(text)")
            #expect(!text.contains("json_each"), "\(predicate): \(text)")
        }
    }

    /// A sorted query walks the sort index and probes the side table, unless the side table
    /// says the match is rare: then it starts from the matches and sorts them.
    @Test func aRareListMatchDrivesASortedPlan() async throws {
        let byName = [SortDescriptor(key: "name", ascending: true)]
        let rare = try await plan(Predicate.field("tags").contains("cake"), sort: byName)
        #expect(rare.contains { $0.hasPrefix("SEARCH r ") && $0.contains("rowid=?") }, "\(rare)")
        #expect(rare.contains("USE TEMP B-TREE FOR ORDER BY"), "\(rare)")
        // Make "cake" common: more side-table rows than the probe's limit (records or not).
        let store = try await container.core.sqliteStore()
        try await store.write { db in
            for id in 0...SQLQueryPlan.fewListMatchesLimit {
                try db.execute(sql: "INSERT INTO lc_list_tags (value, id) VALUES ('cake', ?)", arguments: [1_000_000 + id])
            }
            return ((), commit: true)
        }
        let common = try await plan(Predicate.field("tags").contains("cake"), sort: byName)
        #expect(common.contains { $0.contains("USING INDEX lc_ix_f_name") }, "\(common)")
        #expect(!common.contains("USE TEMP B-TREE FOR ORDER BY"), "\(common)")
        // ALL … IN is rare when any one of its values is.
        let oneRare = try await plan(Predicate.field("tags").containsAll(["cake", "tea"]), sort: byName)
        #expect(oneRare.contains("USE TEMP B-TREE FOR ORDER BY"), "\(oneRare)")
        try await store.write { db in
            try db.execute(sql: "DELETE FROM lc_list_tags WHERE id >= 1000000")
            return ((), commit: true)
        }
    }

    @Test func prefixesSeekABoundedRange() async throws {
        let lines = try await plan(Predicate.field("tags").memberBeginsWith("ta"))
        #expect(lines.contains { $0.contains("lc_list_tags USING PRIMARY KEY (value>? AND value<?)") }, "\(lines)")
        let byName = try await plan(Predicate.field("name").beginsWith("Caf"))
        #expect(byName.contains { $0.contains("USING INDEX lc_ix_f_name (scope=? AND owner=? AND zone=? AND record_type=? AND <expr>>? AND <expr><?)") }, "\(byName)")
        #expect(QuerySQL.prefixUpperBound("a") == "b")
        #expect(QuerySQL.prefixUpperBound("Café") == "Caf\u{EA}")
        #expect(QuerySQL.prefixUpperBound("a\u{10FFFF}") == "b")
        #expect(QuerySQL.prefixUpperBound("\u{D7FF}") == "\u{E000}")
        #expect(QuerySQL.prefixUpperBound("\u{10FFFF}\u{10FFFF}") == nil)
        #expect(QuerySQL.prefixUpperBound("") == nil)
    }

    @Test func tokenComparatorsUseTheFullTextIndex() async throws {
        for predicate in [Predicate.textSearch("cafe"), Predicate.textSearch(anyOf: "cafe oyster")] {
            let lines = try await plan(predicate)
            let text = lines.joined(separator: "\n")
            #expect(lines.contains { $0.contains("records_fts VIRTUAL TABLE INDEX") }, "\(predicate): \(text)")
            #expect(!lines.contains { $0 == "SCAN r" || $0.hasPrefix("SCAN r ") }, "\(predicate): \(text)")
        }
    }

    @Test func sideTableFollowsSavesDeletesAndTheSchema() async throws {
        let store = try await container.core.sqliteStore()
        func rows() async throws -> [String] {
            try await store.read { try String.fetchAll($0, sql: "SELECT value || ':' || id FROM lc_list_tags ORDER BY value, id") }
        }
        await #expect(try rows().count == 8)
        var teakha = try await database.record(for: Record.ID(recordName: "r2"))
        teakha["tags"] = ["tea", "tea", "scones"]
        teakha = try await database.save(teakha)
        #expect(try await names(Predicate.field("tags").contains("cake")) == ["Café Deadend"])
        #expect(try await names(Predicate.field("tags").contains("scones")) == ["Teakha"])
        teakha["tags"] = nil
        _ = try await database.save(teakha)
        #expect(try await names(Predicate.field("tags").contains("tea")) == ["Homei"])
        _ = try await database.deleteRecord(withID: Record.ID(recordName: "r1"))
        #expect(try await names(Predicate.field("tags").contains("tea")).isEmpty)
        await #expect(try rows().count == 4)
        await #expect(try store.invariantViolations() == [])
        // Dropping QUERYABLE drops the table (and its triggers); a query then walks the lists.
        _ = try await container.updateSchema { try $0.setIndex(.queryable, false, type: "Restaurant", field: "tags") }
        await #expect(try store.read(SchemaIndexes.listIndexes).isEmpty)
        let leftovers = try await store.read { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'lc_list%'") }
        #expect(leftovers.isEmpty)
        await #expect(try plan(Predicate.field("tags").containsAny(["wine", "coffee"])).joined().contains("lc_list") == false)
    }

    @Test func subscriptionsMatchTheNewNodes() async throws {
        let predicate = Predicate.field("tags").containsAny(["vegan", "halal"]) && !Predicate.field("tags").memberBeginsWith("closed")
        _ = try await database.save(QuerySubscription(recordType: "Restaurant", predicate: predicate, subscriptionID: "veggie",
                                                      options: [.firesOnRecordCreation]))
        let inbox = NotificationInbox(container.notifications(since: try await container.currentChangeToken()))
        for (name, tags) in [("Green", ["vegan"]), ("Gone", ["halal", "closed-2024"]), ("Grill", ["meat"]), ("Both", ["halal", "vegan"])] {
            let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: name))
            record["name"] = name
            record["tags"] = tags
            _ = try await database.save(record)
        }
        #expect(await inbox.wait(for: 2))
        try await Task.sleep(for: .milliseconds(300))
        #expect(inbox.notifications.compactMap { $0.recordID?.recordName } == ["Green", "Both"])
    }

    @Test func aStoreFromBeforeSideTablesGetsThemWhenMigrated() async throws {
        let store = try await container.core.sqliteStore()
        let path = try await store.read { try String.fetchOne($0, sql: "SELECT file FROM pragma_database_list WHERE name = 'main'") ?? "" }
        // As an older store left it: the schema says QUERYABLE, but no side table and no v4.
        try await store.write { db in
            for suffix in ["_insert", "_update", "_delete"] { try db.execute(sql: "DROP TRIGGER lc_list_tags\(suffix)") }
            try db.execute(sql: "DROP TABLE lc_list_tags")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v4: side tables of queryable lists'")
            return ((), commit: true)
        }
        let queue = try DatabaseQueue(path: path)
        try SQLiteStore.migrator.migrate(queue)
        let rows = try await queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM lc_list_tags") }
        #expect(rows == 8)
        await #expect(try store.invariantViolations() == [])
    }

    // MARK: Schema rules, text forms and cursors

    @Test func schemaRequiresQueryableAndSearchable() async throws {
        _ = try await container.updateSchema { schema in
            try schema.setIndex(.queryable, false, type: "Restaurant", field: "tags")
            for field in ["name", "type"] { try schema.setIndex(.searchable, false, type: "Restaurant", field: field) }
        }
        let tags = Predicate.field("tags")
        for predicate in [tags.containsAny(["a", "b"]), tags.containsAll(["a", "b"]), tags.memberBeginsWith("a"), !tags.containsAny(["a", "b"])] {
            let error = await #expect(throws: CloudError.self) { _ = try await names(predicate) }
            #expect(error?.code == .invalidArguments)
            #expect(error?.message == "Field 'tags' is not marked queryable", "\(predicate)")
        }
        let error = await #expect(throws: CloudError.self) { _ = try await names(Predicate.textSearch(anyOf: "a b")) }
        #expect(error?.message.hasPrefix("Field 'self' is not marked searchable") == true)
    }

    @Test func newNodesRoundTripThroughTextAndJSON() throws {
        let nodes: [PredicateNode] = [
            .listContainsAny(.field("tags"), [.string("a\"b"), .int64(3)]),
            .listContainsAll(.field("tags"), [.string("x"), .string("y"), .string("x")]),
            .listMemberBeginsWith(.field("tags"), "pre\\fix"),
            .listMemberBeginsWith(.field("in"), ""),
            .not(.listContainsAny(.field("tags"), [.string("a"), .string("b")])),
            .not(.listContainsAll(.field("tags"), [.reference(Record.Reference(recordID: Record.ID(recordName: "r"), action: .none)), .string("b")])),
            .not(.listMemberBeginsWith(.field("tags"), "x")),
            .textSearchAny(["ramen", "udon,", " soba "]),
            .and([.textSearchAny(["a", "b"]), .comparison(.field("x"), .equal, .int64(1)), .listContainsAny(.field("t"), [.bool(true), .double(2.5)])]),
        ]
        for node in nodes {
            let format = PredicateFormatter.format(node)
            #expect(try Predicate(format: format).validatedNode() == node, "\(format)")
            let json = try JSONEncoder().encode(node)
            #expect(try JSONDecoder().decode(PredicateNode.self, from: json) == node, "\(format)")
        }
        #expect(PredicateFormatter.format(.listContainsAll(.field("tags"), [.string("x"), .string("y")])) == "ALL {\"x\", \"y\"} IN tags")
        #expect(Predicate.field("tags").memberBeginsWith("x").predicateFormat == "ANY tags BEGINSWITH \"x\"")
        #expect(Predicate.textSearch(anyOf: "ramen udon").predicateFormat == "SELF CONTAINS \"ramen\" OR SELF CONTAINS \"udon\"")
        #expect((Predicate.field("a") == 1 && Predicate.textSearch(anyOf: "x y")).predicateFormat
                == "a == 1 AND (SELF CONTAINS \"x\" OR SELF CONTAINS \"y\")")
    }

    @Test func builderNormalizesAndRejectsLikeTheParser() throws {
        #expect(try Predicate.field("tags").containsAny(["x"]).validatedNode() == .listContains(.field("tags"), .string("x")))
        #expect(try Predicate.field("tags").containsAll(["x"]).validatedNode() == .listContains(.field("tags"), .string("x")))
        #expect(try Predicate.textSearch(anyOf: "solo").validatedNode() == .textSearch("solo"))
        let rejected: [(Predicate, String)] = [
            (Predicate.Field.recordID.containsAny(["a", "b"]), "recordID"),
            (Predicate.Field.creationDate.memberBeginsWith("a"), "creationDate"),
            (Predicate.field("tags").containsAll([Location(latitude: 1, longitude: 2), "x"]), "location"),
            (Predicate.textSearch(anyOf: " ,; "), "at least one word"),
            (!Predicate.textSearch(anyOf: "a b"), "NOT cannot negate"),
        ]
        for (predicate, part) in rejected {
            let error = #expect(throws: CloudError.self) { _ = try predicate.validatedNode() }
            #expect(error?.code == .invalidArguments)
            #expect(error?.message.contains(part) == true, "\(error?.message ?? "")")
        }
    }
}
