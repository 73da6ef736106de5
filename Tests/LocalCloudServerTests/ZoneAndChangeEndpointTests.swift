import Foundation
import LocalCloud
import NIOHTTP1
import Testing
@testable import LocalCloudServer

@Suite("zones, changes and roles over HTTP")
struct ZoneAndChangeEndpointTests {
    static func names(_ json: JSONValue?, _ key: String = "recordName") -> Set<String> {
        Set(json?.arrayValue?.compactMap { $0[key]?.stringValue } ?? [])
    }

    @Test func zonesListLookupModify() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let created = try await server.call(endpoint: "zones/modify", database: "private", user: "alice",
                                            body: #"{"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "Trips"}}}]}"#)
        #expect(created.status == 200)
        #expect(created.json.at("zones", "0", "zoneID", "zoneName") == JSONValue.string("Trips"))
        let listed = try await server.call(.GET, endpoint: "zones/list", database: "private", user: "alice")
        let zoneNames = Set(listed.json["zones"]?.arrayValue?.compactMap { $0.at("zoneID", "zoneName")?.stringValue } ?? [])
        #expect(zoneNames.isSuperset(of: ["Trips", "_defaultZone"]))
        let lookup = try await server.call(endpoint: "zones/lookup", database: "private", user: "alice",
                                           body: #"{"zones": [{"zoneName": "Trips"}, {"zoneName": "Missing"}]}"#)
        #expect(lookup.json.at("zones", "0", "zoneID", "zoneName") == JSONValue.string("Trips"))
        #expect(lookup.json.at("zones", "1", "serverErrorCode") == JSONValue.string("ZONE_NOT_FOUND"))
        let saved = try await server.call(endpoint: "records/modify", database: "private", user: "alice", body: """
            {"zoneID": {"zoneName": "Trips"}, "operations": [{"operationType": "create", "record": {"recordName": "t1", "recordType": "Trip", "fields": {}}}]}
            """)
        #expect(saved.json.at("records", "0", "zoneID", "zoneName") == JSONValue.string("Trips"))
        let bobLooks = try await server.call(endpoint: "zones/lookup", database: "private", user: "bob", body: #"{"zones": [{"zoneName": "Trips"}]}"#)
        #expect(bobLooks.json.at("zones", "0", "serverErrorCode") == JSONValue.string("ZONE_NOT_FOUND"))
        let deleted = try await server.call(endpoint: "zones/modify", database: "private", user: "alice",
                                            body: #"{"operations": [{"operationType": "delete", "zone": {"zoneID": {"zoneName": "Trips"}}}]}"#)
        #expect(deleted.json.at("zones", "0", "deleted") == JSONValue.bool(true))
        let noZone = try await server.call(endpoint: "records/modify", database: "private", user: "alice", body: """
            {"zoneID": {"zoneName": "Trips"}, "operations": [{"operationType": "create", "record": {"recordName": "t2", "recordType": "Trip", "fields": {}}}]}
            """)
        #expect(noZone.json.at("records", "0", "serverErrorCode") == JSONValue.string("ZONE_NOT_FOUND"))
    }

    @Test func recordAndDatabaseChangesSinceASyncToken() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        func create(_ name: String) async throws {
            _ = try await server.call(endpoint: "records/modify", user: "alice", body: """
                {"operations": [{"operationType": "create", "record": {"recordName": "\(name)", "recordType": "Restaurant", "fields": {"name": {"value": "\(name)"}}}}]}
                """)
        }
        try await create("a")
        try await create("b")
        let first = try await server.call(endpoint: "records/changes", body: #"{}"#)
        #expect(first.status == 200, "\(first.json)")
        #expect(Self.names(first.json["records"]) == ["a", "b"])
        let token = try #require(first.json["syncToken"]?.stringValue)
        #expect(first.json["moreComing"] == JSONValue.bool(false))

        try await create("c")
        _ = try await server.call(endpoint: "records/modify", user: "alice", body: #"{"operations": [{"operationType": "forceDelete", "record": {"recordName": "a"}}]}"#)
        let next = try await server.call(endpoint: "records/changes", body: #"{"syncToken": "\#(token)"}"#)
        let records = next.json["records"]?.arrayValue ?? []
        #expect(Self.names(.array(records.filter { $0["deleted"] != JSONValue.bool(true) })) == ["c"])
        #expect(Self.names(.array(records.filter { $0["deleted"] == JSONValue.bool(true) })) == ["a"])

        let zones = try await server.call(endpoint: "changes/zone", body: #"{"zones": [{"zoneID": {"zoneName": "_defaultZone"}, "syncToken": "\#(token)"}]}"#)
        #expect(Self.names(zones.json.at("zones", "0", "records")) == ["a", "c"])
        let database = try await server.call(endpoint: "changes/database", body: #"{}"#)
        #expect(database.status == 200)
        #expect(database.json["syncToken"]?.stringValue != nil)
        let zoneChanges = try await server.call(endpoint: "zones/changes", body: #"{}"#)
        #expect(zoneChanges.status == 200)
        let badToken = try await server.call(endpoint: "records/changes", body: #"{"syncToken": "not-a-token"}"#)
        #expect(badToken.status == 400)
    }

    @Test func rolesAreEnforcedAsInProcess() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let created = try await server.call(endpoint: "records/modify", user: "alice", body: """
            {"operations": [{"operationType": "create", "record": {"recordName": "mine", "recordType": "Restaurant", "fields": {"name": {"value": "Alice's"}}}}]}
            """)
        #expect(created.json.at("records", "0", "recordChangeTag") != nil)
        // The FoodPin schema grants WRITE to _creator only: bob can read alice's record, not change or delete it.
        let read = try await server.call(endpoint: "records/lookup", user: "bob", body: #"{"records": [{"recordName": "mine"}]}"#)
        #expect(read.json.at("records", "0", "fields", "name", "value") == JSONValue.string("Alice's"))
        let update = try await server.call(endpoint: "records/modify", user: "bob", body: """
            {"operations": [{"operationType": "forceUpdate", "record": {"recordName": "mine", "recordType": "Restaurant", "fields": {"name": {"value": "Bob's"}}}}]}
            """)
        #expect(update.json.at("records", "0", "serverErrorCode") == JSONValue.string("ACCESS_DENIED"))
        let delete = try await server.call(endpoint: "records/modify", user: "bob", body: #"{"operations": [{"operationType": "forceDelete", "record": {"recordName": "mine"}}]}"#)
        #expect(delete.json.at("records", "0", "serverErrorCode") == JSONValue.string("ACCESS_DENIED"))
        let still = try await server.call(endpoint: "records/lookup", body: #"{"records": [{"recordName": "mine"}]}"#)
        #expect(still.json.at("records", "0", "fields", "name", "value") == JSONValue.string("Alice's"))
    }
}
