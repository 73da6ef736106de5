import Foundation
import LocalCloud
import NIOCore
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

    static func key(_ n: Int) -> ResponseCache.Key {
        ResponseCache.Key(container: "iCloud.test", environment: .development, scope: .public, user: nil,
                          endpoint: "records/query", body: Array("{\"n\":\(n)}".utf8))
    }

    @Test func aQuestionIsKeptTheSecondTimeItIsAsked() {
        let cache = ResponseCache()
        let stamp = ChangeStamp(commits: 1)
        let first = cache.store(Self.key(1), stamp: stamp, bytes: Array("page".utf8))
        #expect(cache.entry(Self.key(1), stamp: stamp) == nil)
        #expect(cache.counts.entries == 0)
        let second = cache.store(Self.key(1), stamp: stamp, bytes: Array("page".utf8))
        #expect(second.etag == first.etag)
        let hit = cache.entry(Self.key(1), stamp: stamp)
        #expect(hit?.etag == first.etag)
        #expect(hit?.buffer == ByteBuffer(string: "page"))
        // A commit makes it stale: dropped, bytes and all; asked again, it is kept at once.
        #expect(cache.entry(Self.key(1), stamp: ChangeStamp(commits: 2)) == nil)
        #expect(cache.counts.entries == 0 && cache.counts.bytes == 0)
        cache.store(Self.key(1), stamp: ChangeStamp(commits: 2), bytes: Array("new page".utf8))
        #expect(cache.entry(Self.key(1), stamp: ChangeStamp(commits: 2))?.buffer == ByteBuffer(string: "new page"))
    }

    @Test func staysInItsBoundsAndKeepsTheNewest() {
        let cache = ResponseCache(maximumBytes: 4096, maximumEntries: 8)
        let stamp = ChangeStamp(commits: 1)
        for n in 0..<100 {
            for _ in 0..<2 { cache.store(Self.key(n), stamp: stamp, bytes: Array(repeating: 65, count: 100)) }
            #expect(cache.counts.entries <= 8)
        }
        #expect((92..<100).allSatisfy { cache.entry(Self.key($0), stamp: stamp) != nil })
        #expect(cache.entry(Self.key(91), stamp: stamp) == nil)
        // Over the byte bound (each entry 500 bytes and its key), the oldest go first.
        for n in 100..<110 {
            for _ in 0..<2 { cache.store(Self.key(n), stamp: stamp, bytes: Array(repeating: 66, count: 500)) }
            #expect(cache.counts.bytes <= 4096)
        }
        #expect(cache.entry(Self.key(109), stamp: stamp) != nil)
        #expect(cache.entry(Self.key(100), stamp: stamp) == nil)
    }

    @Test func aPageStoredAfterEveryCommitDoesNotGrowTheEvictionOrder() {
        let cache = ResponseCache()
        for commit in 0..<10_000 {
            let stamp = ChangeStamp(commits: UInt64(commit))
            #expect(cache.entry(Self.key(0), stamp: stamp) == nil)
            cache.store(Self.key(0), stamp: stamp, bytes: Array("page \(commit)".utf8))
        }
        let counts = cache.counts
        #expect(counts.entries == 1)
        #expect(counts.order <= 2 * 64 + 1)
    }
}
