import Foundation
import Testing
@testable import LocalCloud

@Suite struct SchemaTextTests {
    static let foodPinURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Assets/FoodPin.ckdb")

    @Test func foodPinSchemaParses() throws {
        let schema = try Schema(ckdb: String(contentsOf: Self.foodPinURL, encoding: .utf8))
        let restaurant = try #require(schema.recordTypes["Restaurant"])
        #expect(restaurant.userFields.map(\.name) == ["name", "type", "location", "phone", "description", "image"])
        #expect(restaurant.field(named: "image")?.type == .asset)
        #expect(restaurant.system(.recordID).isQueryable)
        #expect(restaurant.system(.createTime).isSortable)
        #expect(restaurant.system(.createdBy).isQueryable)
        #expect(restaurant.field(named: "name")?.indexes == [.queryable, .sortable, .searchable])
        #expect(restaurant.grants == RecordTypeSchema.defaultGrants)
        #expect(schema.recordTypes["Users"]?.field(named: "roles")?.type == .list(.int64))
    }

    @Test func roundTripKeepsEverything() throws {
        let text = """
            -- a comment
            DEFINE SCHEMA
                CREATE ROLE Moderator;
                create role "Critic";   // keywords are case-insensitive
                RECORD TYPE Restaurant (
                    "___recordID" REFERENCE QUERYABLE,
                    "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                    name STRING QUERYABLE SORTABLE SEARCHABLE,
                    tags LIST< STRING > QUERYABLE SEARCHABLE,
                    spot LOCATION QUERYABLE SORTABLE,
                    photos LIST<ASSET>,
                    owner REFERENCE QUERYABLE,
                    raw BYTES,
                    rating DOUBLE SORTABLE,
                    visits INT64,
                    opened TIMESTAMP,
                    "grant" STRING,
                    GRANT READ, CREATE, WRITE TO "Moderator",
                    GRANT WRITE TO "_creator",
                    GRANT CREATE TO "_icloud",
                    GRANT READ TO "_world",
                );
                RECORD TYPE Empty ( );
            """
        let schema = try Schema(ckdb: text)
        let type = try #require(schema.recordTypes["Restaurant"])
        #expect(schema.roles == ["Moderator", "Critic"])
        #expect(type.grants["Moderator"] == [.read, .create, .write])
        #expect(type.field(named: "tags")?.type == .list(.string))
        #expect(type.field(named: "grant")?.type == .string)
        #expect(type.fields.prefix(6).map(\.name) == SystemField.allCases.map(\.rawValue), "system fields first, missing ones added")
        #expect(schema.recordTypes["Empty"]?.grants.isEmpty == true)

        let printed = schema.ckdb
        let reparsed = try Schema(ckdb: printed)
        #expect(reparsed == schema)
        #expect(reparsed.ckdb == printed)
        #expect(printed.contains("\"grant\" "), "a field named like a keyword is quoted")
        #expect(printed.contains("GRANT READ, CREATE, WRITE TO \"Moderator\""))
    }

    @Test func foodPinRoundTrips() throws {
        let schema = try Schema(ckdb: String(contentsOf: Self.foodPinURL, encoding: .utf8))
        #expect(try Schema(ckdb: schema.ckdb) == schema)
    }

    @Test(arguments: [
        ("RECORD TYPE A ( );", "line 1, column 1: expected DEFINE"),
        ("DEFINE SCHEMA\nRECORD TYPE A (\n  name STRANG\n);", "line 3, column 8: unknown field type 'STRANG'"),
        ("DEFINE SCHEMA\nRECORD TYPE A (\n  name STRING\n  other STRING\n);", "line 4, column 3: expected ',' or ')'"),
        ("DEFINE SCHEMA\nRECORD TYPE A (\n  image ASSET QUERYABLE\n);", "line 3, column 15: field 'image' of type ASSET cannot be QUERYABLE"),
        ("DEFINE SCHEMA\nRECORD TYPE A (\n  n INT64 SEARCHABLE\n);", "line 3, column 11"),
        ("DEFINE SCHEMA\nRECORD TYPE A (\n  GRANT READ TO \"Nobody\"\n);", "line 3, column 17: GRANT to unknown role 'Nobody'"),
        ("DEFINE SCHEMA\nRECORD TYPE A (\n  GRANT DELETE TO \"_world\"\n);", "line 3, column 9: expected READ, CREATE or WRITE"),
        ("DEFINE SCHEMA\nRECORD TYPE A (\n  name STRING,\n  name INT64\n);", "field 'name' is defined twice"),
        ("DEFINE SCHEMA\nRECORD TYPE A ( x STRING );\nRECORD TYPE A ( y STRING );", "line 3, column 13: record type 'A' is defined twice"),
        ("DEFINE SCHEMA\nRECORD TYPE A ( x STRING )", "expected ';'"),
        ("DEFINE SCHEMA\nRECORD TYPE A ( \"x STRING );", "line 2, column 17: unterminated quoted name"),
        ("DEFINE SCHEMA\nRECORD TYPE A ( x LIST<LIST<STRING>> );", "lists of lists"),
        ("DEFINE SCHEMA\nRECORD TYPE A ( \"___foo\" STRING );", "unknown system field '___foo'"),
        ("DEFINE SCHEMA\nRECORD TYPE A ( \"___recordID\" STRING );", "system field '___recordID' has type REFERENCE"),
        ("DEFINE SCHEMA\nRECORD TYPE A ( x STRING ) ; #", "line 2, column 30: unexpected character '#'"),
        ("DEFINE SCHEMA\nCREATE ROLE _mine;", "invalid role name '_mine'"),
        ("DEFINE SCHEMA\nDROP TYPE A;", "line 2, column 1: expected RECORD TYPE or CREATE ROLE, found DROP"),
    ])
    func malformedInputNamesLineAndColumn(text: String, expected: String) throws {
        let error = try #require(throws: CloudError.self) { _ = try Schema(ckdb: text) }
        #expect(error.code == .invalidArguments)
        #expect(error.message.contains(expected), "\(error.message)")
    }
}
