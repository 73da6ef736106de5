import Foundation
import LocalCloud
import Testing
@testable import LocalCloudServer

@Suite("records/query comparators over HTTP")
struct ComparatorEndpointTests {
    static let schema = #"""
        DEFINE SCHEMA
            RECORD TYPE Place (
                "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                "___createdBy"  REFERENCE QUERYABLE,
                "___etag"       STRING,
                "___modTime"    TIMESTAMP QUERYABLE SORTABLE,
                "___modifiedBy" REFERENCE,
                "___recordID"   REFERENCE QUERYABLE,
                name            STRING QUERYABLE SORTABLE SEARCHABLE,
                rating          INT64 QUERYABLE SORTABLE,
                tags            LIST<STRING> QUERYABLE,
                spot            LOCATION QUERYABLE SORTABLE,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world"
            );
        """#

    /// name, rating, tags, latitude (all at longitude 0)
    static let places: [(String, Int, [String], Double)] = [
        ("Café Déjà Vu", 5, ["coffee", "paris"], 0.0),
        ("Noodle Bar", 3, ["noodles", "cheap"], 0.01),
        ("Noodle House", 4, ["noodles"], 0.5),
        ("Steak Place", 2, [], 2.0),
    ]

    static func names(_ server: TestServer, _ filter: String) async throws -> [String] {
        let response = try await server.call(endpoint: "records/query", body: """
            {"query": {"recordType": "Place", "filterBy": [\(filter)], "sortBy": [{"fieldName": "name"}]}}
            """)
        #expect(response.status == 200, "\(filter): \(response.json)")
        return response.json["records"]?.arrayValue?.compactMap { $0.at("fields", "name", "value")?.stringValue } ?? []
    }

    static func f(_ comparator: String, _ field: String, _ value: String, type: String? = nil, extra: String = "") -> String {
        let typeKey = type.map { #", "type": "\#($0)""# } ?? ""
        return #"{"comparator": "\#(comparator)", "fieldName": "\#(field)", "fieldValue": {"value": \#(value)\#(typeKey)}\#(extra)}"#
    }

    @Test func everyComparator() async throws {
        let server = try await TestServer.start(configure: { configuration in
            let container = Container(configuration: .init(containerIdentifier: "iCloud.com.example.Test",
                                                           dataDirectory: configuration.dataDirectory, user: nil))
            _ = try? await container.importSchema(Schema(ckdb: Self.schema))
        })
        defer { Task { await server.stop() } }
        let operations = Self.places.enumerated().map { index, place in
            let tags = place.2.map { "\"\($0)\"" }.joined(separator: ",")
            return #"{"operationType": "create", "record": {"recordName": "p\#(index)", "recordType": "Place", "fields": {"name": {"value": "\#(place.0)"}, "rating": {"value": \#(place.1)}, "tags": {"value": [\#(tags)], "type": "STRING_LIST"}, "spot": {"value": {"latitude": \#(place.3), "longitude": 0}}}}}"#
        }
        let saved = try await server.call(endpoint: "records/modify", user: "alice", body: #"{"operations": [\#(operations.joined(separator: ","))]}"#)
        #expect(saved.status == 200)

        let all = ["Café Déjà Vu", "Noodle Bar", "Noodle House", "Steak Place"]
        let cases: [(String, [String])] = [
            (Self.f("EQUALS", "rating", "3"), ["Noodle Bar"]),
            (Self.f("NOT_EQUALS", "rating", "3"), ["Café Déjà Vu", "Noodle House", "Steak Place"]),
            (Self.f("LESS_THAN", "rating", "3"), ["Steak Place"]),
            (Self.f("LESS_THAN_OR_EQUALS", "rating", "3"), ["Noodle Bar", "Steak Place"]),
            (Self.f("GREATER_THAN", "rating", "4"), ["Café Déjà Vu"]),
            (Self.f("GREATER_THAN_OR_EQUALS", "rating", "4"), ["Café Déjà Vu", "Noodle House"]),
            (Self.f("NEAR", "spot", #"{"latitude": 0, "longitude": 0}"#, type: "LOCATION", extra: #", "distance": 5000"#), ["Café Déjà Vu", "Noodle Bar"]),
            (Self.f("CONTAINS_ALL_TOKENS", "name", #""noodle bar""#), ["Noodle Bar"]),
            (Self.f("CONTAINS_ALL_TOKENS", "name", #""cafe deja""#), ["Café Déjà Vu"]),
            (Self.f("CONTAINS_ANY_TOKENS", "name", #""steak cafe""#), ["Café Déjà Vu", "Steak Place"]),
            (Self.f("IN", "rating", "[2, 5]", type: "INT64_LIST"), ["Café Déjà Vu", "Steak Place"]),
            (Self.f("NOT_IN", "rating", "[2, 5]", type: "INT64_LIST"), ["Noodle Bar", "Noodle House"]),
            (Self.f("LIST_CONTAINS", "tags", #""noodles""#), ["Noodle Bar", "Noodle House"]),
            (Self.f("NOT_LIST_CONTAINS", "tags", #""noodles""#), ["Café Déjà Vu", "Steak Place"]),
            (Self.f("LIST_CONTAINS_ANY", "tags", #"["paris", "cheap"]"#, type: "STRING_LIST"), ["Café Déjà Vu", "Noodle Bar"]),
            (Self.f("NOT_LIST_CONTAINS_ANY", "tags", #"["paris", "cheap"]"#, type: "STRING_LIST"), ["Noodle House", "Steak Place"]),
            (Self.f("LIST_CONTAINS_ALL", "tags", #"["noodles", "cheap"]"#, type: "STRING_LIST"), ["Noodle Bar"]),
            (Self.f("NOT_LIST_CONTAINS_ALL", "tags", #"["noodles", "cheap"]"#, type: "STRING_LIST"), ["Café Déjà Vu", "Noodle House", "Steak Place"]),
            (Self.f("BEGINS_WITH", "name", #""Noodle""#), ["Noodle Bar", "Noodle House"]),
            (Self.f("NOT_BEGINS_WITH", "name", #""Noodle""#), ["Café Déjà Vu", "Steak Place"]),
            (Self.f("LIST_MEMBER_BEGINS_WITH", "tags", #""noo""#), ["Noodle Bar", "Noodle House"]),
            (Self.f("NOT_LIST_MEMBER_BEGINS_WITH", "tags", #""noo""#), ["Café Déjà Vu", "Steak Place"]),
            (Self.f("EQUALS", "___recordID", #"{"recordName": "p3"}"#, type: "REFERENCE"), ["Steak Place"]),
            (Self.f("GREATER_THAN", "___createTime", "0", type: "TIMESTAMP"), all),
        ]
        for (filter, expected) in cases {
            let got = try await Self.names(server, filter)
            #expect(got == expected, "\(filter)")
        }
    }
}
