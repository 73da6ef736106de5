import Foundation
import LocalCloud
import Testing
@testable import LocalCloudServer

@Suite("records/modify operation types")
struct ModifyOperationTests {
    static func modify(_ server: TestServer, _ operations: String, atomic: Bool? = nil) async throws -> JSONValue {
        let atomicKey = atomic.map { #", "atomic": \#($0)"# } ?? ""
        let response = try await server.call(endpoint: "records/modify", user: "alice", body: #"{"operations": [\#(operations)]\#(atomicKey)}"#)
        #expect(response.status == 200, "\(response.json)")
        return response.json
    }

    static func record(_ name: String, tag: String? = nil, fields: String) -> String {
        let tagKey = tag.map { #", "recordChangeTag": "\#($0)""# } ?? ""
        return #"{"recordName": "\#(name)", "recordType": "Restaurant"\#(tagKey), "fields": {\#(fields)}}"#
    }

    static func fields(_ json: JSONValue, _ index: Int = 0) -> Set<String> {
        Set(json.at("records", "\(index)", "fields")?.objectValue?.keys.map { $0 } ?? [])
    }

    @Test func eachOperationTypeFollowsItsConflictRule() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let created = try await Self.modify(server, #"{"operationType": "create", "record": \#(Self.record("r", fields: #""name": {"value": "A"}, "phone": {"value": "1"}"#))}"#)
        var tag = try #require(created.at("records", "0", "recordChangeTag")?.stringValue)

        // update: merges the given fields, needs the current tag.
        let updated = try await Self.modify(server, #"{"operationType": "update", "record": \#(Self.record("r", tag: tag, fields: #""name": {"value": "B"}"#))}"#)
        #expect(Self.fields(updated) == ["name", "phone"])
        #expect(updated.at("records", "0", "fields", "name", "value") == JSONValue.string("B"))
        let staleUpdate = try await Self.modify(server, #"{"operationType": "update", "record": \#(Self.record("r", tag: tag, fields: #""name": {"value": "C"}"#))}"#)
        #expect(staleUpdate.at("records", "0", "serverErrorCode") == JSONValue.string("CONFLICT"))
        tag = try #require(updated.at("records", "0", "recordChangeTag")?.stringValue)

        // replace: every field replaced, needs the tag.
        let replaced = try await Self.modify(server, #"{"operationType": "replace", "record": \#(Self.record("r", tag: tag, fields: #""type": {"value": "Thai"}"#))}"#)
        #expect(Self.fields(replaced) == ["type"])
        let staleReplace = try await Self.modify(server, #"{"operationType": "replace", "record": \#(Self.record("r", tag: tag, fields: #""type": {"value": "X"}"#))}"#)
        #expect(staleReplace.at("records", "0", "serverErrorCode") == JSONValue.string("CONFLICT"))

        // forceUpdate merges and forceReplace replaces, whatever the tag.
        let forcedUpdate = try await Self.modify(server, #"{"operationType": "forceUpdate", "record": \#(Self.record("r", tag: "old", fields: #""name": {"value": "D"}"#))}"#)
        #expect(Self.fields(forcedUpdate) == ["type", "name"])
        let forcedReplace = try await Self.modify(server, #"{"operationType": "forceReplace", "record": \#(Self.record("r", fields: #""phone": {"value": "2"}"#))}"#)
        #expect(Self.fields(forcedReplace) == ["phone"])
        tag = try #require(forcedReplace.at("records", "0", "recordChangeTag")?.stringValue)

        // delete checks the tag; forceDelete does not.
        let staleDelete = try await Self.modify(server, #"{"operationType": "delete", "record": {"recordName": "r", "recordChangeTag": "old"}}"#)
        #expect(staleDelete.at("records", "0", "serverErrorCode") == JSONValue.string("CONFLICT"))
        let deleted = try await Self.modify(server, #"{"operationType": "delete", "record": {"recordName": "r", "recordChangeTag": "\#(tag)"}}"#)
        #expect(deleted.at("records", "0", "deleted") == JSONValue.bool(true))
        let missing = try await Self.modify(server, #"{"operationType": "forceDelete", "record": {"recordName": "r"}}"#)
        #expect(missing.at("records", "0", "serverErrorCode") == JSONValue.string("NOT_FOUND"))
        _ = try await Self.modify(server, #"{"operationType": "create", "record": \#(Self.record("s", fields: ""))}"#)
        let forceDeleted = try await Self.modify(server, #"{"operationType": "forceDelete", "record": {"recordName": "s"}}"#)
        #expect(forceDeleted.at("records", "0", "deleted") == JSONValue.bool(true))
    }

    @Test func atomicBatchesFailTogether() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        _ = try await Self.modify(server, #"{"operationType": "create", "record": \#(Self.record("taken", fields: ""))}"#)
        let batch = #"{"operationType": "create", "record": \#(Self.record("new1", fields: ""))}, {"operationType": "create", "record": \#(Self.record("taken", fields: ""))}"#
        let atomic = try await Self.modify(server, batch, atomic: true)
        #expect(atomic.at("records", "0", "serverErrorCode") == JSONValue.string("ATOMIC_ERROR"))
        #expect(atomic.at("records", "1", "serverErrorCode") == JSONValue.string("EXISTS"))
        let lookup = try await server.call(endpoint: "records/lookup", body: #"{"records": [{"recordName": "new1"}]}"#)
        #expect(lookup.json.at("records", "0", "serverErrorCode") == JSONValue.string("NOT_FOUND"))
        let partial = try await Self.modify(server, batch, atomic: false)
        #expect(partial.at("records", "0", "recordChangeTag") != nil)
        #expect(partial.at("records", "1", "serverErrorCode") == JSONValue.string("EXISTS"))
    }

    @Test func requestLimits() async throws {
        let server = try await TestServer.start { $0.maxJSONBytes = 64 * 1024 }
        defer { Task { await server.stop() } }
        let tooMany = (0..<401).map { #"{"operationType": "create", "record": \#(Self.record("n" + String($0), fields: ""))}"# }.joined(separator: ",")
        let many = try await server.call(endpoint: "records/modify", user: "alice", body: #"{"operations": [\#(tooMany)]}"#)
        #expect(many.status == 413 || many.status == 400)
        #expect(many.json["serverErrorCode"] == JSONValue.string("QUOTA_EXCEEDED"))
        let big = try await server.call(endpoint: "records/query", body: #"{"query": {"recordType": "\#(String(repeating: "x", count: 70_000))"}}"#)
        #expect(big.status == 413)
        #expect(big.json["serverErrorCode"] == JSONValue.string("QUOTA_EXCEEDED"))
        let unknown = try await Self.modifyStatus(server, #"{"operationType": "explode", "record": {"recordName": "x"}}"#)
        #expect(unknown == 400)
        let traversal = try await TestServer.send(.POST, "\(server.baseURL)/database/1/..%2F..%2Fetc/development/public/records/query?ckAPIToken=\(StaticAuthenticator.apiToken)", body: Array("{}".utf8))
        #expect(traversal.status == 400 || traversal.status == 404)
        let badName = try await Self.modifyStatus(server, #"{"operationType": "create", "record": {"recordName": "../../x", "recordType": "../Evil", "fields": {}}}"#)
        #expect(badName == 200 || badName == 400)
        let wrongType = try await server.call(endpoint: "records/query", body: #"{"query": {"recordType": 5}}"#)
        #expect(wrongType.status == 400)
        let badComparator = try await server.call(endpoint: "records/query", body: #"{"query": {"recordType": "Restaurant", "filterBy": [{"comparator": "LIKE", "fieldName": "name", "fieldValue": {"value": "x"}}]}}"#)
        #expect(badComparator.status == 400)
    }

    static func modifyStatus(_ server: TestServer, _ operations: String) async throws -> Int {
        try await server.call(endpoint: "records/modify", user: "alice", body: #"{"operations": [\#(operations)]}"#).status
    }

    @Test func pagingWithContinuationMarkersUnderConcurrentInserts() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let names = (0..<60).map { String(format: "p%03d", $0) }
        for chunk in stride(from: 0, to: names.count, by: 20) {
            let ops = names[chunk..<chunk + 20].map { #"{"operationType": "create", "record": \#(Self.record($0, fields: ""))}"# }
            _ = try await Self.modify(server, ops.joined(separator: ","))
        }
        // Page newest first while another client keeps inserting: every record that existed when
        // paging began comes exactly once, in order.
        let inserter = Task {
            for index in 0..<30 {
                _ = try await server.call(endpoint: "records/modify", user: "bob", body: #"{"operations": [{"operationType": "create", "record": \#(Self.record("late" + String(index), fields: ""))}]}"#)
            }
        }
        var seen: [String] = []
        var marker: String?
        let query = #""query": {"recordType": "Restaurant", "sortBy": [{"fieldName": "___createTime", "ascending": false}]}"#
        let first = try await server.call(endpoint: "records/query", body: #"{\#(query), "resultsLimit": 7}"#)
        var page = first.json
        while true {
            seen += page["records"]?.arrayValue?.compactMap { $0["recordName"]?.stringValue } ?? []
            marker = page["continuationMarker"]?.stringValue
            guard let marker else { break }
            page = try await server.call(endpoint: "records/query", body: #"{"continuationMarker": "\#(marker)", "resultsLimit": 7}"#).json
        }
        try await inserter.value
        let original = seen.filter { $0.hasPrefix("p") }
        #expect(original == names.reversed())
        #expect(Set(seen).count == seen.count)
        let bad = try await server.call(endpoint: "records/query", body: #"{"continuationMarker": "garbage!!"}"#)
        #expect(bad.status == 400)
    }
}
