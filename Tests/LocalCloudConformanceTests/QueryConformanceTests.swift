import Foundation
import Testing
import LocalCloud

/// Queries, sorts, cursors and text search: the same on every store.
@Suite(.serialized) struct QueryConformanceTests {
    /// Saves `count` restaurants named "R000"… in one batch.
    private func seed(_ db: Database, count: Int, type: String = "Cafe") async throws {
        let records = (0..<count).map { restaurant(String(format: "R%03d", $0), type: type, recordName: String(format: "r%03d", $0)) }
        let (saves, _) = try await db.modifyRecords(saving: records, deleting: [])
        for (_, result) in saves { _ = try result.get() }
    }

    @Test(arguments: StoreKind.allCases)
    func cursorsWalkEveryRecordOnce(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            try await seed(db, count: 45)
            let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
            query.sortDescriptors = [SortDescriptor(key: "name", ascending: true)]
            var names: [String] = []
            var page = try await db.records(matching: query, resultsLimit: 10)
            var pages = 1
            while true {
                names += try page.matchResults.map { try $0.1.get()["name"] as? String ?? "" }
                guard let cursor = page.queryCursor else { break }
                page = try await db.records(continuingMatchFrom: cursor, resultsLimit: 10)
                pages += 1
            }
            #expect(pages == 5)
            #expect(names == (0..<45).map { String(format: "R%03d", $0) })
        }
    }

    @Test(arguments: StoreKind.allCases)
    func recordsWithoutTheSortFieldComeFirstAscendingAndLastDescending(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            let counts: [String: Int64?] = ["a": 3, "b": nil, "c": 1, "d": nil, "e": 2]
            let items = counts.map { name, count in
                let item = Record(recordType: "Item", recordID: Record.ID(recordName: name))
                item["title"] = name
                if let count { item["count"] = count }
                return item
            }
            let (saves, _) = try await db.modifyRecords(saving: items, deleting: [])
            for (_, result) in saves { _ = try result.get() }
            for ascending in [true, false] {
                let query = Query(recordType: "Item", predicate: Predicate(value: true))
                query.sortDescriptors = [SortDescriptor(key: "count", ascending: ascending)]
                // One page of everything, and one record a page through cursors: the same order.
                let whole = try await db.records(matching: query).matchResults.map { try $0.1.get()["count"] as? Int64 }
                var walked: [Int64?] = []
                var page = try await db.records(matching: query, resultsLimit: 1)
                while true {
                    walked += try page.matchResults.map { try $0.1.get()["count"] as? Int64 }
                    guard let cursor = page.queryCursor else { break }
                    page = try await db.records(continuingMatchFrom: cursor, resultsLimit: 1)
                }
                let expected: [Int64?] = ascending ? [nil, nil, 1, 2, 3] : [3, 2, 1, nil, nil]
                #expect(whole == expected, "ascending \(ascending)")
                #expect(walked == expected, "ascending \(ascending), by cursor")
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func cursorSurvivesInsertsBeforeIt(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            try await seed(db, count: 20)
            let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
            query.sortDescriptors = [SortDescriptor(key: "name", ascending: true)]
            let first = try await db.records(matching: query, resultsLimit: 10)
            let cursor = try #require(first.queryCursor)
            // A record sorting before the cursor must not shift the next page.
            _ = try await db.save(restaurant("A-first", recordName: "early"))
            let second = try await db.records(continuingMatchFrom: cursor, resultsLimit: 10)
            let names = try second.matchResults.map { try $0.1.get()["name"] as? String ?? "" }
            #expect(names == (10..<20).map { String(format: "R%03d", $0) })
        }
    }

    @Test(arguments: StoreKind.allCases)
    func newestFirstByCreationDate(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            for name in ["old", "middle", "new"] { _ = try await db.save(restaurant(name)) }
            let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
            query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
            let page = try await db.records(matching: query)
            #expect(try page.matchResults.map { try $0.1.get()["name"] as? String } == ["new", "middle", "old"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func predicatesFilter(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            try await seed(db, count: 6, type: "Cafe")
            _ = try await db.save(restaurant("Noodle Bar", type: "Ramen"))
            let ramen = try await db.records(matching: Query(recordType: "Restaurant", predicate: Predicate(format: "type == %@", "Ramen")))
            #expect(try ramen.matchResults.map { try $0.1.get()["name"] as? String } == ["Noodle Bar"])
            let prefix = try await db.records(matching: Query(recordType: "Restaurant", predicate: Predicate(format: "name BEGINSWITH %@", "R00")))
            #expect(prefix.matchResults.count == 6)
            let listed = try await db.records(matching: Query(recordType: "Restaurant", predicate: Predicate(format: "name IN %@", ["R001", "R003", "nothing"])))
            #expect(Set(try listed.matchResults.map { try $0.1.get()["name"] as? String ?? "" }) == ["R001", "R003"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func textSearchIgnoresCaseAndAccents(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            _ = try await db.save(restaurant("Café Déjà Vu", type: "Bistro"))
            _ = try await db.save(restaurant("Burger Barn", type: "Burgers"))
            let found = try await db.records(matching: Query(recordType: "Restaurant", predicate: Predicate(format: "self CONTAINS %@", "cafe")))
            #expect(try found.matchResults.map { try $0.1.get()["name"] as? String } == ["Café Déjà Vu"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func distanceQueriesAndSorts(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            let central = Location(latitude: 22.2819, longitude: 114.1582)
            for (name, latitude) in [("near", 22.2829), ("far", 22.40), ("nearest", 22.2820)] {
                let item = Record(recordType: "Item")
                item["title"] = name
                item["place"] = Location(latitude: latitude, longitude: 114.1582)
                _ = try await db.save(item)
            }
            let query = Query(recordType: "Item", predicate: Predicate(format: "distanceToLocation:fromLocation:(place, %@) < %f", central, 1.0))
            query.sortDescriptors = [LocationSortDescriptor(key: "place", relativeLocation: central)]
            let page = try await db.records(matching: query)
            #expect(try page.matchResults.map { try $0.1.get()["title"] as? String } == ["nearest", "near"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func desiredKeysApplyToQueries(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            let record = restaurant("Only Name")
            record["phone"] = "555"
            _ = try await db.save(record)
            let page = try await db.records(matching: Query(recordType: "Restaurant", predicate: Predicate(value: true)), desiredKeys: ["name"])
            let fetched = try #require(try page.matchResults.first?.1.get())
            #expect(fetched["name"] as? String == "Only Name")
            #expect(fetched["phone"] == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func resultsLimitOutOfRangeIsRefused(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
            let negative = await cloudError { _ = try await db.records(matching: query, resultsLimit: -1) }
            #expect(negative?.code == .invalidArguments)
            let tooMany = await cloudError { _ = try await db.records(matching: query, resultsLimit: QueryOperation.maximumResultsLimit + 1) }
            #expect(tooMany?.code == .limitExceeded)
        }
    }

    /// Restaurants for search as you type: Latin with accents, a CJK name, and near misses.
    private func seedTypedSearch(_ db: Database) async throws {
        let records = [
            restaurant("Café Déjà Vu", type: "Bistro", recordName: "cafe"),
            restaurant("Ramen Tokyo", type: "Ramen", recordName: "tokyo"),
            restaurant("Cabbage Patch", type: "Vegan", recordName: "cabbage"),
            restaurant("一蘭拉麵", type: "Ramen", recordName: "ichiran"),
            restaurant("ラーメン凪 Nagi", type: "Izakaya", recordName: "nagi"),
        ]
        let (saves, _) = try await db.modifyRecords(saving: records, deleting: [])
        for (_, result) in saves { _ = try result.get() }
    }

    private func names(_ db: Database, _ predicate: LocalCloud.Predicate) async throws -> Set<String> {
        let query = Query(recordType: "Restaurant", predicate: predicate)
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
        return Set(try await db.records(matching: query).matchResults.map { $0.0.recordName })
    }

    @Test(arguments: StoreKind.allCases)
    func typedSearchNarrowsWithEveryLetter(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            try await seedTypedSearch(db)
            let expected: [(String, Set<String>)] = [
                ("c", ["cafe", "cabbage"]), ("ca", ["cafe", "cabbage"]), ("caf", ["cafe"]), ("cafe", ["cafe"]),
                ("CAFÉ", ["cafe"]), ("cafe de", ["cafe"]), ("cafe deja v", ["cafe"]), ("bistro caf", ["cafe"]),
                ("tok", ["tokyo"]), ("ram", ["tokyo", "ichiran"]), ("ramen to", ["tokyo"]),
                // A space finishes the word: it then matches only whole words, as `self CONTAINS` does.
                ("caf ", []), ("cafe ", ["cafe"]), ("x", []), ("cafe tok", []),
                // Punctuation is not searched for, and quotes stay data.
                ("\"caf", ["cafe"]), ("caf\" OR x", []),
            ]
            for (text, names) in expected {
                #expect(try await self.names(db, LocalCloud.Predicate.textSearch(asTyped: text)) == names, "\(text)")
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func typedSearchFindsCJKBySubstring(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            try await seedTypedSearch(db)
            let expected: [(String, Set<String>)] = [
                ("拉麵", ["ichiran"]), ("一蘭", ["ichiran"]), ("蘭拉", ["ichiran"]), ("麵", ["ichiran"]),
                ("一蘭拉麵", ["ichiran"]), ("拉一", []), ("拉麵 ram", ["ichiran"]), ("ramen 一", ["ichiran"]),
                ("ラーメン", ["nagi"]), ("メン凪", ["nagi"]), ("凪 nag", ["nagi"]), ("凪nagi", ["nagi"]), ("凪 tokyo", []),
            ]
            for (text, names) in expected {
                #expect(try await self.names(db, LocalCloud.Predicate.textSearch(asTyped: text)) == names, "\(text)")
            }
            // Written as a format string, the same search.
            #expect(try await names(db, LocalCloud.Predicate(format: "self CONTAINS_AS_TYPED %@", "蘭拉")) == ["ichiran"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func selfContainsKeepsItsMeaning(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            try await seedTypedSearch(db)
            // Whole tokens only, CJK runs included: the extension changes none of CloudKit's comparators.
            let expected: [(String, Set<String>)] = [
                ("caf", []), ("cafe", ["cafe"]), ("拉麵", []), ("麵", []), ("一蘭拉麵", ["ichiran"]), ("ramen", ["tokyo", "ichiran"]),
            ]
            for (text, names) in expected {
                #expect(try await self.names(db, LocalCloud.Predicate.textSearch(text)) == names, "\(text)")
            }
            #expect(try await names(db, LocalCloud.Predicate.textSearch(anyOf: "麵 caf")) == [])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func typedSearchPagesThroughEveryMatchOnce(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            try await seed(db, count: 45)
            let query = Query(recordType: "Restaurant", predicate: .textSearch(asTyped: "r0"))
            query.sortDescriptors = [SortDescriptor(key: "name", ascending: true)]
            var names: [String] = []
            var page = try await db.records(matching: query, resultsLimit: 10)
            while true {
                names += try page.matchResults.map { try $0.1.get()["name"] as? String ?? "" }
                guard let cursor = page.queryCursor else { break }
                page = try await db.records(continuingMatchFrom: cursor, resultsLimit: 10)
            }
            #expect(names == (0..<45).map { String(format: "R%03d", $0) })
        }
    }
}
