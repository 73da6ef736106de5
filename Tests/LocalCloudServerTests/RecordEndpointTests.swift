import Foundation
import NIOHTTP1
import LocalCloud
import Testing
@testable import LocalCloudServer

@Suite("records endpoints")
struct RecordEndpointTests {
    @Test func createQueryLookupAndConflict() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }

        let created = try await server.call(endpoint: "records/modify", user: "alice", body: """
            {"operations": [{"operationType": "create", "record": {"recordName": "r1", "recordType": "Restaurant",
              "fields": {"name": {"value": "Cafe Deadend"}, "rating": {"value": 4, "type": "INT64"},
                         "visited": {"value": 1700000000000, "type": "TIMESTAMP"},
                         "where": {"value": {"latitude": 22.28, "longitude": 114.15}, "type": "LOCATION"}}}}]}
            """)
        #expect(created.status == 200)
        let record = try #require(created.json.at("records", "0"))
        #expect(record["recordName"] == JSONValue.string("r1"))
        #expect(record.at("fields", "name", "value") == JSONValue.string("Cafe Deadend"))
        #expect(record.at("fields", "name", "type") == JSONValue.string("STRING"))
        #expect(record.at("fields", "visited", "value") == JSONValue.int(1_700_000_000_000))
        #expect(record.at("created", "userRecordName") == JSONValue.string("_alice"))
        let tag = try #require(record["recordChangeTag"]?.stringValue)

        let queried = try await server.call(endpoint: "records/query", body: """
            {"query": {"recordType": "Restaurant", "sortBy": [{"fieldName": "___createTime", "ascending": false}]},
             "desiredKeys": ["name"]}
            """)
        #expect(queried.status == 200, "\(queried.json)")
        #expect(queried.json.at("records", "0", "fields", "name", "value") == JSONValue.string("Cafe Deadend"))
        #expect(queried.json.at("records", "0", "fields", "rating") == nil)

        let lookup = try await server.call(endpoint: "records/lookup", body: #"{"records": [{"recordName": "r1"}, {"recordName": "nope"}]}"#)
        #expect(lookup.json.at("records", "0", "recordChangeTag") == JSONValue.string(tag))
        #expect(lookup.json.at("records", "1", "serverErrorCode") == JSONValue.string("NOT_FOUND"))

        let again = try await server.call(endpoint: "records/modify", user: "alice", body: """
            {"operations": [{"operationType": "create", "record": {"recordName": "r1", "recordType": "Restaurant", "fields": {}}}]}
            """)
        #expect(again.json.at("records", "0", "serverErrorCode") == JSONValue.string("EXISTS"))

        let stale = try await server.call(endpoint: "records/modify", user: "alice", body: """
            {"operations": [{"operationType": "update", "record": {"recordName": "r1", "recordType": "Restaurant",
              "recordChangeTag": "stale", "fields": {"name": {"value": "X"}}}}]}
            """)
        #expect(stale.json.at("records", "0", "serverErrorCode") == JSONValue.string("CONFLICT"))
        #expect(stale.json.at("records", "0", "serverRecord", "recordChangeTag") == JSONValue.string(tag))
    }

    @Test func writesWithoutAUserNeedAuthentication() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let response = try await server.call(endpoint: "records/modify", body: """
            {"operations": [{"operationType": "create", "record": {"recordType": "Restaurant", "fields": {}}}]}
            """)
        #expect(response.status == 421)
        #expect(response.json["serverErrorCode"] == JSONValue.string("AUTHENTICATION_REQUIRED"))
        #expect(response.json["redirectURL"]?.stringValue?.hasSuffix("/auth/1/iCloud.com.example.Test/signin") == true)
    }

    @Test func badInputGets4xx() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let notJSON = try await server.call(endpoint: "records/query", body: "{nope")
        #expect(notJSON.status == 400)
        #expect(notJSON.json["serverErrorCode"] == JSONValue.string("BAD_REQUEST"))
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let nested = try await server.call(endpoint: "records/query", body: deep)
        #expect(nested.status == 400)
        let badToken = try await TestServer.send(.POST, server.url("records/query", apiToken: "wrong"), body: Array("{}".utf8))
        #expect(badToken.status == 401)
        #expect(badToken.json["serverErrorCode"] == JSONValue.string("AUTHENTICATION_FAILED"))
        let limit = try await server.call(endpoint: "records/query", body: #"{"query": {"recordType": "R"}, "resultsLimit": 1000000000}"#)
        #expect(limit.status == 400)
    }
}
