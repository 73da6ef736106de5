import Foundation
import LocalCloud
import NIOHTTP1
import Testing
@testable import LocalCloudServer

@Suite("query response cache")
struct ResponseCacheTests {
    static let discover = #"{"query": {"recordType": "Restaurant", "sortBy": [{"fieldName": "___createTime", "ascending": false}]}, "resultsLimit": 50, "desiredKeys": ["name"]}"#

    static func create(_ server: TestServer, _ name: String) async throws {
        let response = try await server.call(endpoint: "records/modify", user: "alice", body: """
            {"operations": [{"operationType": "create", "record": {"recordName": "\(name)", "recordType": "Restaurant",
              "fields": {"name": {"value": "\(name)"}}}}]}
            """)
        #expect(response.status == 200)
    }

    @Test func aCommitNeverLeavesAStalePage() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        for round in 0..<20 {
            try await Self.create(server, "r\(round)")
            let page = try await server.call(endpoint: "records/query", body: Self.discover)
            // Every save acknowledged before the query is on the page, newest first.
            #expect(page.json.at("records", "0", "recordName") == JSONValue.string("r\(round)"))
            #expect(page.json["records"]?.arrayValue?.count == round + 1)
        }
    }

    @Test func ifNoneMatchGets304UntilSomethingChanges() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        try await Self.create(server, "first")
        let url = server.url("records/query")
        var request = HTTPClientRequestBuilder(url: url, body: Self.discover)
        let first = try await request.send()
        let etag = try #require(first.headers.first(name: "ETag"))
        request.headers = [("If-None-Match", etag)]
        let again = try await request.send()
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        try await Self.create(server, "second")
        let changed = try await request.send()
        #expect(changed.status == 200)
        #expect(changed.headers.first(name: "ETag") != etag)
    }
}
