import Foundation
import Testing
@testable import LocalCloud

/// `Query(webServices:)`: the Query dictionary of CloudKit Web Services' `records/query`, run
/// against a real store, one case per comparator; and every malformed request is
/// `invalidArguments` naming the key.
@Suite struct QueryWebServicesTests {
    let cloud = TestCloud()
    let container: Container
    let seededAt: Date

    static let all = ["Bourke Street Bakery", "Cafe Loisl", "Café Deadend", "Homei", "Petite Oyster", "Teakha"]

    static func except(_ names: String...) -> [String] {
        all.filter { !names.contains($0) }
    }

    init() async throws {
        container = cloud.container(user: "alice")
        seededAt = Date()
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
            record["since"] = Date(timeIntervalSince1970: 1_000_000 * Double(i))
            record["price"] = 10.5 * Double(i)
            return record
        }
        _ = try await container.publicCloudDatabase.modifyRecords(saving: records, deleting: [])
    }

    /// The query a JSON text describes.
    static func query(_ json: String) throws -> Query {
        try Query(webServices: JSONValue.parse(Array(json.utf8)))
    }

    /// The names a Query dictionary selects, by name unless it sorts itself.
    func names(_ json: String) async throws -> [String] {
        let query = try Self.query(json)
        if query.sortDescriptors == nil { query.sortDescriptors = [SortDescriptor(key: "name", ascending: true)] }
        let (results, _) = try await container.publicCloudDatabase.records(matching: query)
        return try results.map { try $0.1.get()["name"] as? String ?? "?" }
    }

    /// A Query dictionary for Restaurant with one filter.
    static func filtered(_ filter: String) -> String {
        #"{"recordType": "Restaurant", "filterBy": [\#(filter)]}"#
    }

    // MARK: One case per comparator

    static let comparatorCases: [(filter: String, expected: [String])] = [
        (#"{"comparator": "EQUALS", "fieldName": "type", "fieldValue": {"value": "Cafe", "type": "STRING"}}"#, ["Café Deadend", "Homei"]),
        (#"{"comparator": "NOT_EQUALS", "fieldName": "type", "fieldValue": {"value": "Cafe"}}"#, except("Café Deadend", "Homei")),
        (#"{"comparator": "LESS_THAN", "fieldName": "rating", "fieldValue": {"value": 3, "type": "INT64"}}"#, ["Cafe Loisl"]),
        (#"{"comparator": "LESS_THAN_OR_EQUALS", "fieldName": "rating", "fieldValue": {"value": 3}}"#, ["Cafe Loisl", "Homei"]),
        (#"{"comparator": "GREATER_THAN", "fieldName": "rating", "fieldValue": {"value": "4", "type": "INT64"}}"#, ["Petite Oyster", "Teakha"]),
        (#"{"comparator": "GREATER_THAN_OR_EQUALS", "fieldName": "price", "fieldValue": {"value": 31.5, "type": "DOUBLE"}}"#,
         ["Bourke Street Bakery", "Cafe Loisl", "Petite Oyster"]),
        // 500 metres: the two cafés nearest the point, not Teakha (850 m away).
        (#"{"comparator": "NEAR", "fieldName": "location", "fieldValue": {"value": {"latitude": 22.2830, "longitude": 114.1580}, "type": "LOCATION"}, "distance": 500}"#,
         ["Café Deadend", "Homei"]),
        (#"{"comparator": "CONTAINS_ALL_TOKENS", "fieldValue": {"value": "CAFE deadend"}}"#, ["Café Deadend"]),
        // LocalCloud's search as you type: the last word a prefix, the others whole.
        (#"{"comparator": "LOCALCLOUD_CONTAINS_AS_TYPED", "fieldValue": {"value": "caf", "type": "STRING"}}"#, ["Cafe Loisl", "Café Deadend", "Homei"]),
        (#"{"comparator": "LOCALCLOUD_CONTAINS_AS_TYPED", "fieldValue": {"value": "cafe dea"}}"#, ["Café Deadend"]),
        (#"{"comparator": "LOCALCLOUD_CONTAINS_AS_TYPED", "fieldValue": {"value": "caf "}}"#, []),
        (#"{"comparator": "CONTAINS_ANY_TOKENS", "fieldName": "name", "fieldValue": {"value": "oyster bakery", "type": "STRING"}}"#,
         ["Bourke Street Bakery", "Petite Oyster"]),
        (#"{"comparator": "IN", "fieldName": "type", "fieldValue": {"value": ["French", "Austrian"], "type": "STRING_LIST"}}"#, ["Cafe Loisl", "Petite Oyster"]),
        (#"{"comparator": "NOT_IN", "fieldName": "type", "fieldValue": {"value": ["French", "Austrian"]}}"#, except("Cafe Loisl", "Petite Oyster")),
        (#"{"comparator": "LIST_CONTAINS", "fieldName": "tags", "fieldValue": {"value": "cake", "type": "STRING"}}"#, ["Café Deadend", "Teakha"]),
        (#"{"comparator": "NOT_LIST_CONTAINS", "fieldName": "tags", "fieldValue": {"value": "cake"}}"#, except("Café Deadend", "Teakha")),
        // The field's list type with one element.
        (#"{"comparator": "LIST_CONTAINS", "fieldName": "tags", "fieldValue": {"value": "wine", "type": "STRING_LIST"}}"#, ["Petite Oyster"]),
        (#"{"comparator": "LIST_CONTAINS_ANY", "fieldName": "tags", "fieldValue": {"value": ["cake", "wine"], "type": "STRING_LIST"}}"#,
         ["Café Deadend", "Petite Oyster", "Teakha"]),
        (#"{"comparator": "NOT_LIST_CONTAINS_ANY", "fieldName": "tags", "fieldValue": {"value": ["cake", "wine"]}}"#,
         ["Bourke Street Bakery", "Cafe Loisl", "Homei"]),
        (#"{"comparator": "LIST_CONTAINS_ALL", "fieldName": "tags", "fieldValue": {"value": ["tea", "cake"], "type": "STRING_LIST"}}"#, ["Teakha"]),
        (#"{"comparator": "NOT_LIST_CONTAINS_ALL", "fieldName": "tags", "fieldValue": {"value": ["tea", "cake"]}}"#, except("Teakha")),
        (#"{"comparator": "BEGINS_WITH", "fieldName": "name", "fieldValue": {"value": "Caf", "type": "STRING"}}"#, ["Cafe Loisl", "Café Deadend"]),
        (#"{"comparator": "NOT_BEGINS_WITH", "fieldName": "name", "fieldValue": {"value": "Caf"}}"#, except("Cafe Loisl", "Café Deadend")),
        (#"{"comparator": "LIST_MEMBER_BEGINS_WITH", "fieldName": "tags", "fieldValue": {"value": "ta", "type": "STRING"}}"#, ["Teakha"]),
        (#"{"comparator": "NOT_LIST_MEMBER_BEGINS_WITH", "fieldName": "tags", "fieldValue": {"value": "c"}}"#, except("Café Deadend", "Teakha")),
        // Empty lists.
        (#"{"comparator": "IN", "fieldName": "type", "fieldValue": {"value": [], "type": "STRING_LIST"}}"#, []),
        (#"{"comparator": "LIST_CONTAINS_ANY", "fieldName": "tags", "fieldValue": {"value": []}}"#, []),
        (#"{"comparator": "NOT_LIST_CONTAINS_ANY", "fieldName": "tags", "fieldValue": {"value": []}}"#, all),
        (#"{"comparator": "LIST_CONTAINS_ALL", "fieldName": "tags", "fieldValue": {"value": [], "type": "STRING_LIST"}}"#, all),
        // System fields and typed values.
        (#"{"comparator": "EQUALS", "fieldName": "___recordID", "fieldValue": {"value": {"recordName": "r1", "zoneID": {"zoneName": "_defaultZone"}}, "type": "REFERENCE"}}"#, ["Homei"]),
        (#"{"comparator": "EQUALS", "fieldName": "___recordID", "fieldValue": {"value": "r2", "type": "STRING"}}"#, ["Teakha"]),
        (#"{"comparator": "IN", "fieldName": "___recordID", "fieldValue": {"value": ["r0", {"recordName": "r4"}]}}"#, ["Café Deadend", "Petite Oyster"]),
        (#"{"comparator": "NOT_IN", "fieldName": "___recordID", "fieldValue": {"value": [{"recordName": "r0"}], "type": "REFERENCE_LIST"}}"#, except("Café Deadend")),
        (#"{"comparator": "EQUALS", "fieldName": "___createdBy", "fieldValue": {"value": {"recordName": "_alice"}, "type": "REFERENCE"}}"#, all),
        (#"{"comparator": "EQUALS", "fieldName": "___modifiedBy", "fieldValue": {"value": "_bob"}}"#, []),
        (#"{"comparator": "GREATER_THAN_OR_EQUALS", "fieldName": "since", "fieldValue": {"value": 3000000000, "type": "TIMESTAMP"}}"#,
         ["Bourke Street Bakery", "Cafe Loisl", "Petite Oyster"]),
        (#"{"comparator": "LESS_THAN", "fieldName": "___createTime", "fieldValue": {"value": 1000}}"#, []),
        (#"{"comparator": "LESS_THAN", "fieldName": "since", "fieldValue": {"value": "1000000001", "type": "TIMESTAMP"}}"#, ["Café Deadend", "Homei"]),
        (#"{"comparator": "GREATER_THAN", "fieldName": "___modTime", "fieldValue": {"value": 1000, "type": "TIMESTAMP"}}"#, all),
    ]

    @Test(arguments: 0..<comparatorCases.count)
    func comparator(_ index: Int) async throws {
        let (filter, expected) = Self.comparatorCases[index]
        #expect(try await names(Self.filtered(filter)) == expected, "\(filter)")
    }

    @Test func everyComparatorHasACase() {
        let covered = Set(Self.comparatorCases.compactMap { filter, _ in
            QueryComparator.allCases.first { filter.contains("\"\($0.rawValue)\"") }
        })
        #expect(covered == Set(QueryComparator.allCases))
    }

    @Test func filtersAreAndedAndTheDateIsMilliseconds() async throws {
        let beforeSeed = Int64((seededAt.timeIntervalSince1970 - 60) * 1000)
        let json = #"""
            {"recordType": "Restaurant", "filterBy": [
              {"comparator": "LIST_CONTAINS", "fieldName": "tags", "fieldValue": {"value": "tea"}},
              {"comparator": "GREATER_THAN_OR_EQUALS", "fieldName": "rating", "fieldValue": {"value": 4}},
              {"comparator": "GREATER_THAN", "fieldName": "___createTime", "fieldValue": {"value": \#(beforeSeed), "type": "TIMESTAMP"}}
            ]}
            """#
        #expect(try await names(json) == ["Teakha"])
        let node = try Self.query(json).predicate.validatedNode()
        guard case .and(let parts) = node, case .comparison(.creationDate, .greater, .date(let date)) = parts.last else {
            Issue.record("unexpected node \(node)")
            return
        }
        #expect(abs(date.timeIntervalSince1970 - Double(beforeSeed) / 1000) < 0.001)
        // No filterBy at all: every record of the type.
        #expect(try await names(#"{"recordType": "Restaurant"}"#) == Self.all)
        #expect(try await names(#"{"recordType": "Restaurant", "filterBy": [], "sortBy": []}"#) == Self.all)
    }

    @Test func nearIsInMetres() throws {
        let json = Self.filtered(#"{"comparator": "NEAR", "fieldName": "location", "fieldValue": {"value": {"latitude": 1, "longitude": 2, "altitude": 5, "horizontalAccuracy": 3}}, "distance": 1500}"#)
        let node = try Self.query(json).predicate.validatedNode()
        #expect(node == .distance(.field("location"), Location(latitude: 1, longitude: 2, altitude: 5), .lessOrEqual, kilometres: 1.5))
    }

    @Test func sortBy() async throws {
        let byRating = #"""
            {"recordType": "Restaurant", "sortBy": [{"fieldName": "rating", "ascending": false}, {"fieldName": "name"}]}
            """#
        #expect(try await names(byRating) == ["Petite Oyster", "Teakha", "Bourke Street Bakery", "Café Deadend", "Homei", "Cafe Loisl"])
        let nearVienna = #"""
            {"recordType": "Restaurant", "sortBy": [{"fieldName": "location", "relativeLocation": {"latitude": 48.2, "longitude": 16.37}}]}
            """#
        let sorted = try await names(nearVienna)
        #expect(Array(sorted.prefix(2)) == ["Cafe Loisl", "Petite Oyster"])
        #expect(sorted.last == "Bourke Street Bakery")
        let query = try Self.query(nearVienna)
        let descriptor = try #require(query.sortDescriptors?.first as? LocationSortDescriptor)
        #expect(descriptor.relativeLocation == Location(latitude: 48.2, longitude: 16.37))
        let newest = try Self.query(#"{"recordType": "Restaurant", "sortBy": [{"fieldName": "___createTime", "ascending": false}, {"fieldName": "___modifiedBy"}]}"#)
        #expect(newest.sortDescriptors?.map(\.key) == ["creationDate", "lastModifiedUserRecordID"])
        #expect(newest.sortDescriptors?.map(\.ascending) == [false, true])
        _ = try await container.publicCloudDatabase.records(matching: newest)
    }

    // MARK: Bad input

    /// Each request and a part of the message that must name what is wrong.
    static let badCases: [(json: String, part: String)] = [
        (#"[]"#, "query must be a dictionary"),
        (#"{"filterBy": []}"#, "query.recordType is missing"),
        (#"{"recordType": 3}"#, "query.recordType must be a string"),
        (#"{"recordType": "Bad Type!"}"#, "query.recordType"),
        (#"{"recordType": "Restaurant", "filterBy": {}}"#, "query.filterBy must be an array"),
        (#"{"recordType": "Restaurant", "filterBy": [3]}"#, "query.filterBy[0] must be a dictionary"),
        (filtered(#"{"fieldName": "a", "fieldValue": {"value": 1}}"#), "query.filterBy[0].comparator is missing"),
        (filtered(#"{"comparator": "LIKE", "fieldName": "a", "fieldValue": {"value": 1}}"#), "query.filterBy[0].comparator"),
        (filtered(#"{"comparator": "equals", "fieldName": "a", "fieldValue": {"value": 1}}"#), "is not a comparator"),
        (filtered(#"{"comparator": "EQUALS", "fieldValue": {"value": 1}}"#), "query.filterBy[0].fieldName is missing"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": 7, "fieldValue": {"value": 1}}"#), "query.filterBy[0].fieldName must be a string"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "owner.name", "fieldValue": {"value": 1}}"#), "query.filterBy[0].fieldName"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "___etag", "fieldValue": {"value": "x"}}"#), "query.filterBy[0].fieldName"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "a"}"#), "query.filterBy[0].fieldValue is missing"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "a", "fieldValue": "x"}"#), "query.filterBy[0].fieldValue must be a dictionary"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "a", "fieldValue": {"type": "STRING"}}"#), "query.filterBy[0].fieldValue.value is missing"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "a", "fieldValue": {"value": null}}"#), "query.filterBy[0].fieldValue.value is null"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "a", "fieldValue": {"value": 1, "type": 5}}"#), "query.filterBy[0].fieldValue.type must be a string"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "a", "fieldValue": {"value": 1, "type": "FOO"}}"#), "query.filterBy[0].fieldValue.type 'FOO'"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "a", "fieldValue": {"value": 1, "type": "FOO_LIST"}}"#), "query.filterBy[0].fieldValue.type"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "a", "fieldValue": {"value": {}, "type": "ASSET"}}"#), "assets cannot be queried"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "a", "fieldValue": {"value": "abc", "type": "INT64"}}"#), "fieldValue.value must be an integer"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "a", "fieldValue": {"value": 1.5, "type": "INT64"}}"#), "fieldValue.value must be an integer"),
        (filtered(#"{"comparator": "IN", "fieldName": "a", "fieldValue": {"value": "1", "type": "STRING_LIST"}}"#), "must be a list"),
        (filtered(#"{"comparator": "IN", "fieldName": "a", "fieldValue": {"value": [1, "x"], "type": "INT64_LIST"}}"#), "fieldValue.value[1] must be an integer"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "a", "fieldValue": {"value": 1e300, "type": "TIMESTAMP"}}"#), "fieldValue.value is not a timestamp"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "a", "fieldValue": {"value": "%%%", "type": "BYTES"}}"#), "base64"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "a", "fieldValue": {"value": {"zone": 1}}}"#), "fieldValue.value is a dictionary"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "a", "fieldValue": {"value": {"recordName": 5}}}"#), "fieldValue.value.recordName"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "a", "fieldValue": {"value": {"recordName": "r", "zoneID": "z"}, "type": "REFERENCE"}}"#), "fieldValue.value.zoneID"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "a", "fieldValue": {"value": {"recordName": "r", "action": "CASCADE"}}}"#), "fieldValue.value.action"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "a", "fieldValue": {"value": [[1]]}}"#), "fieldValue.value[0] is a nested array"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "a", "fieldValue": {"value": [1, 2]}}"#), "must be a single value for EQUALS"),
        (filtered(#"{"comparator": "IN", "fieldName": "a", "fieldValue": {"value": 1}}"#), "must be a list"),
        (filtered(#"{"comparator": "LIST_CONTAINS_ALL", "fieldName": "a", "fieldValue": {"value": "x"}}"#), "must be a list"),
        (filtered(#"{"comparator": "BEGINS_WITH", "fieldName": "a", "fieldValue": {"value": 1}}"#), "must be a string for BEGINS_WITH"),
        (filtered(#"{"comparator": "CONTAINS_ALL_TOKENS", "fieldValue": {"value": 1}}"#), "must be a string for CONTAINS_ALL_TOKENS"),
        (filtered(#"{"comparator": "CONTAINS_ANY_TOKENS", "fieldValue": {"value": " ,; "}}"#), "at least one word"),
        (filtered(#"{"comparator": "LESS_THAN", "fieldName": "___recordID", "fieldValue": {"value": "r1"}}"#), "query.filterBy[0] (LESS_THAN on recordID)"),
        (filtered(#"{"comparator": "BEGINS_WITH", "fieldName": "___createTime", "fieldValue": {"value": "x", "type": "STRING"}}"#), "query.filterBy[0]"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "___createTime", "fieldValue": {"value": "yesterday"}}"#), "fieldValue.value must be a number of milliseconds"),
        (filtered(#"{"comparator": "EQUALS", "fieldName": "location", "fieldValue": {"value": {"latitude": 1, "longitude": 2}}}"#), "distanceToLocation"),
        (filtered(#"{"comparator": "NEAR", "fieldName": "location", "fieldValue": {"value": {"latitude": 1, "longitude": 2}}}"#), "query.filterBy[0].distance is missing"),
        (filtered(#"{"comparator": "NEAR", "fieldName": "location", "fieldValue": {"value": {"latitude": 1, "longitude": 2}}, "distance": -1}"#), "query.filterBy[0].distance must be a radius"),
        (filtered(#"{"comparator": "NEAR", "fieldName": "location", "fieldValue": {"value": {"latitude": 1, "longitude": 2}}, "distance": 1e30}"#), "query.filterBy[0].distance"),
        (filtered(#"{"comparator": "NEAR", "fieldName": "location", "fieldValue": {"value": {"latitude": 1, "longitude": 2}}, "distance": "far"}"#), "query.filterBy[0].distance"),
        (filtered(#"{"comparator": "NEAR", "fieldName": "location", "fieldValue": {"value": {"latitude": 91, "longitude": 2}}, "distance": 5}"#), "fieldValue.value.latitude"),
        (filtered(#"{"comparator": "NEAR", "fieldName": "location", "fieldValue": {"value": {"latitude": 1}, "type": "LOCATION"}, "distance": 5}"#), "fieldValue.value.longitude is missing"),
        (filtered(#"{"comparator": "NEAR", "fieldName": "location", "fieldValue": {"value": "here"}, "distance": 5}"#), "must be a LOCATION"),
        (filtered(#"{"comparator": "NEAR", "fieldName": "___createTime", "fieldValue": {"value": {"latitude": 1, "longitude": 2}, "type": "LOCATION"}, "distance": 5}"#), "query.filterBy[0] (NEAR on creationDate)"),
        (#"{"recordType": "Restaurant", "sortBy": [{"ascending": true}]}"#, "query.sortBy[0].fieldName is missing"),
        (#"{"recordType": "Restaurant", "sortBy": [{"fieldName": "a", "ascending": "yes"}]}"#, "query.sortBy[0].ascending must be true or false"),
        (#"{"recordType": "Restaurant", "sortBy": [{"fieldName": "a b"}]}"#, "query.sortBy[0].fieldName"),
        (#"{"recordType": "Restaurant", "sortBy": "name"}"#, "query.sortBy must be an array"),
        (#"{"recordType": "Restaurant", "sortBy": [{"fieldName": "location", "relativeLocation": {"latitude": "x", "longitude": 2}}]}"#, "query.sortBy[0].relativeLocation.latitude"),
        (#"{"recordType": "Restaurant", "sortBy": [{"fieldName": "location", "relativeLocation": {"latitude": 1, "longitude": 2}, "ascending": false}]}"#, "query.sortBy[0].ascending"),
        (#"{"recordType": "Restaurant", "sortBy": [{"fieldName": "___createTime", "relativeLocation": {"latitude": 1, "longitude": 2}}]}"#, "query.sortBy[0].relativeLocation"),
    ]

    @Test(arguments: 0..<badCases.count)
    func badInput(_ index: Int) throws {
        let (json, part) = Self.badCases[index]
        let error = #expect(throws: CloudError.self, "\(json)") { _ = try Self.query(json) }
        #expect(error?.code == .invalidArguments, "\(json)")
        #expect(error?.message.contains(part) == true, "\(json): \(error?.message ?? "")")
        #expect(error?.message.unicodeScalars.contains { $0.properties.generalCategory == .control } == false)
    }

    @Test func absurdInputNeverTraps() throws {
        func rejects(_ json: JSONValue, _ part: String, sourceLocation: SourceLocation = #_sourceLocation) {
            let error = #expect(throws: CloudError.self, sourceLocation: sourceLocation) { _ = try Query(webServices: json) }
            #expect(error?.code == .invalidArguments, sourceLocation: sourceLocation)
            #expect(error?.message.contains(part) == true, "\(error?.message ?? "")", sourceLocation: sourceLocation)
        }
        func filter(_ comparator: String, _ fieldValue: JSONValue, distance: JSONValue? = nil) -> JSONValue {
            var entry: [String: JSONValue] = ["comparator": .string(comparator), "fieldName": .string("a"), "fieldValue": fieldValue]
            entry["distance"] = distance
            return .object(["recordType": .string("Restaurant"), "filterBy": .array([.object(entry)])])
        }
        // NaN and infinities cannot come from JSON text, but a caller can build them.
        rejects(filter("EQUALS", .object(["value": .number(.nan)])), "finite")
        rejects(filter("EQUALS", .object(["value": .number(.infinity), "type": .string("DOUBLE")])), "finite")
        rejects(filter("EQUALS", .object(["value": .number(.nan), "type": .string("TIMESTAMP")])), "timestamp")
        let here = JSONValue.object(["value": .object(["latitude": .number(.nan), "longitude": .int(2)])])
        rejects(filter("NEAR", here, distance: .int(5)), "latitude")
        let point = JSONValue.object(["value": .object(["latitude": .int(1), "longitude": .int(2)])])
        rejects(filter("NEAR", point, distance: .number(.infinity)), "distance")
        rejects(filter("NEAR", point, distance: .number(.nan)), "distance")
        // Huge lists and too many filters are refused before any SQL is built.
        let huge = JSONValue.array(Array(repeating: .string("x"), count: 100_000))
        rejects(filter("IN", .object(["value": huge])), "at most 1000")
        rejects(filter("LIST_CONTAINS_ANY", .object(["value": huge, "type": .string("STRING_LIST")])), "at most 1000")
        let many = Array(repeating: JSONValue.object(["comparator": .string("EQUALS"), "fieldName": .string("a"), "fieldValue": .object(["value": .int(1)])]), count: 101)
        rejects(.object(["recordType": .string("Restaurant"), "filterBy": .array(many)]), "at most 100")
        rejects(.object(["recordType": .string(String(repeating: "a", count: 100_000))]), "query.recordType")
        // Deep nesting: the parser refuses it, or the query does; either way an error, not a crash.
        let deep = String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000)
        for text in [#"{"recordType": "R", "filterBy": \#(deep)}"#, Self.filtered(#"{"comparator": "IN", "fieldName": "a", "fieldValue": {"value": \#(deep)}}"#)] {
            let error = #expect(throws: CloudError.self) { _ = try Self.query(text) }
            #expect(error?.code == .invalidArguments)
        }
        var nested = JSONValue.int(1)
        for _ in 0..<200 { nested = .array([nested]) }
        rejects(filter("IN", .object(["value": nested])), "nested array")
    }

    @Test func runsUnderTheSchemaIndexRules() async throws {
        let strictCloud = TestCloud()
        let strict = strictCloud.container(user: "alice", checksIndexes: true)
        _ = try await strict.publicCloudDatabase.save(restaurant("Homei"))
        _ = try await strict.publicCloudDatabase.save(restaurant("Teakha", type: "Tea House"))
        _ = try await strict.updateSchema { schema in
            try schema.setIndex(.queryable, true, type: "Restaurant", field: "recordName")
            try schema.setIndex(.queryable, true, type: "Restaurant", field: "type")
        }
        let query = try Self.query(Self.filtered(#"{"comparator": "LIST_CONTAINS_ANY", "fieldName": "tags", "fieldValue": {"value": ["a", "b"]}}"#))
        let error = await #expect(throws: CloudError.self) { _ = try await strict.publicCloudDatabase.records(matching: query) }
        #expect(error?.message == "Field 'tags' is not marked queryable: type 'Restaurant' has no such field")
        let allowed = try Self.query(Self.filtered(#"{"comparator": "NOT_IN", "fieldName": "type", "fieldValue": {"value": ["Cafe"]}}"#))
        #expect(try await strict.publicCloudDatabase.records(matching: allowed).matchResults.count == 1)
    }
}
