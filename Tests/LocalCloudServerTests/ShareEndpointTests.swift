import Foundation
import LocalCloud
import NIOHTTP1
import Testing
@testable import LocalCloudServer

/// Sharing over HTTP on a real server: cloudkit.share through records/modify, records/resolve and
/// records/accept, the shared database's endpoints, the share page, and every refusal.
@Suite("sharing over HTTP")
struct ShareEndpointTests {
    static let sharedZone = #"{"zoneName": "Lists", "ownerRecordName": "_alice"}"#

    static func names(_ json: JSONValue?) -> Set<String> {
        Set(json?.arrayValue?.compactMap { $0["serverErrorCode"] == nil ? $0["recordName"]?.stringValue : nil } ?? [])
    }

    /// alice's zone "Lists" with the list "friday", an entry below it and an unrelated note, then
    /// a share of the list with bob (read-write) and carol (read-only). Returns the share's JSON.
    static func aliceSharesFriday(_ server: TestServer) async throws -> JSONValue {
        _ = try await server.call(endpoint: "zones/modify", database: "private", user: "alice",
                                  body: #"{"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "Lists"}}}]}"#)
        let records = try await server.call(endpoint: "records/modify", database: "private", user: "alice", body: """
            {"zoneID": {"zoneName": "Lists"}, "operations": [
              {"operationType": "create", "record": {"recordName": "friday", "recordType": "List", "fields": {"name": {"value": "Friday"}}}},
              {"operationType": "create", "record": {"recordName": "homei", "recordType": "Restaurant", "parent": {"recordName": "friday"},
                                                     "fields": {"name": {"value": "Homei"}}}},
              {"operationType": "create", "record": {"recordName": "note", "recordType": "Restaurant", "fields": {"name": {"value": "Private"}}}}]}
            """)
        #expect(records.status == 200, "\(records.json)")
        #expect(records.json.at("records", "1", "parent", "recordName") == .string("friday"))
        let shared = try await server.call(endpoint: "records/modify", database: "private", user: "alice", body: """
            {"zoneID": {"zoneName": "Lists"}, "operations": [
              {"operationType": "create", "record": {"recordName": "friday-share", "recordType": "cloudkit.share",
                "rootRecord": {"recordName": "friday"}, "publicPermission": "NONE",
                "fields": {"cloudkit.title": {"value": "Friday"}},
                "participants": [
                  {"userIdentity": {"userRecordName": "_bob"}, "permission": "READ_WRITE", "type": "USER"},
                  {"userIdentity": {"lookupInfo": {"userRecordName": "_carol"}}, "permission": "READ_ONLY", "type": "PRIVATE_USER"}]}}]}
            """)
        #expect(shared.status == 200, "\(shared.json)")
        return try #require(shared.json.at("records", "0"))
    }

    @Test func shareResolveAcceptAndTheSharedDatabase() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let share = try await Self.aliceSharesFriday(server)
        #expect(share["recordType"] == .string("cloudkit.share"))
        #expect(share["publicPermission"] == .string("NONE"))
        let guid = try #require(share["shortGUID"]?.stringValue)
        #expect(guid.count == 22)
        #expect(share["url"]?.stringValue == "\(server.baseURL)/share/\(guid)")
        let types = share["participants"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? []
        #expect(types.sorted() == ["OWNER", "USER", "USER"])
        #expect(share.at("owner", "userIdentity", "userRecordName") == .string("_alice"))
        #expect(share.at("fields", "cloudkit.title", "value") == .string("Friday"))
        let root = try await server.call(endpoint: "records/lookup", database: "private", user: "alice",
                                         body: #"{"zoneID": {"zoneName": "Lists"}, "records": [{"recordName": "friday"}]}"#)
        #expect(root.json.at("records", "0", "share", "recordName") == .string("friday-share"))

        // bob resolves (with the root record's name) and accepts.
        let resolved = try await server.call(endpoint: "records/resolve", database: "public", user: "bob", body: """
            {"shortGUIDs": [{"value": "\(guid)", "shouldFetchRootRecord": true, "rootRecordDesiredKeys": ["name"]}]}
            """)
        #expect(resolved.status == 200, "\(resolved.json)")
        let result = try #require(resolved.json.at("results", "0"))
        #expect(result["participantType"] == .string("USER"))
        #expect(result["participantStatus"] == .string("INVITED"))
        #expect(result["participantPermission"] == .string("READ_WRITE"))
        #expect(result["databaseScope"] == .string("SHARED"))
        #expect(result.at("zoneID", "ownerRecordName") == .string("_alice"))
        #expect(result["rootRecordName"] == .string("friday"))
        #expect(result.at("rootRecord", "fields", "name", "value") == .string("Friday"))
        #expect(result.at("ownerIdentity", "userRecordName") == .string("_alice"))
        #expect(try await server.call(.GET, endpoint: "zones/list", database: "shared", user: "bob").json["zones"]?.arrayValue?.isEmpty == true)
        let accepted = try await server.call(endpoint: "records/accept", database: "public", user: "bob",
                                             body: #"{"shortGUIDs": [{"value": "\#(guid)"}]}"#)
        #expect(accepted.status == 200)
        #expect(accepted.json.at("results", "0", "currentUserParticipant", "acceptanceStatus") == .string("ACCEPTED"))

        // The shared database: zones, changes, query, lookup and modify, with ownerRecordName.
        let zones = try await server.call(.GET, endpoint: "zones/list", database: "shared", user: "bob")
        #expect(zones.json.at("zones", "0", "zoneID", "zoneName") == .string("Lists"))
        #expect(zones.json.at("zones", "0", "zoneID", "ownerRecordName") == .string("_alice"))
        let database = try await server.call(endpoint: "changes/database", database: "shared", user: "bob", body: "{}")
        #expect(database.json.at("zones", "0", "zoneID", "ownerRecordName") == .string("_alice"))
        let syncToken = try #require(database.json["syncToken"]?.stringValue)
        let query = try await server.call(endpoint: "records/query", database: "shared", user: "bob", body: """
            {"zoneID": \(Self.sharedZone), "query": {"recordType": "Restaurant"}}
            """)
        #expect(query.status == 200, "\(query.json)")
        #expect(Self.names(query.json["records"]) == ["homei"])
        #expect(query.json.at("records", "0", "zoneID", "ownerRecordName") == .string("_alice"))
        let lookup = try await server.call(endpoint: "records/lookup", database: "shared", user: "bob", body: """
            {"zoneID": \(Self.sharedZone), "records": [{"recordName": "friday"}, {"recordName": "note"}]}
            """)
        #expect(lookup.json.at("records", "0", "fields", "name", "value") == .string("Friday"))
        #expect(lookup.json.at("records", "1", "serverErrorCode") == .string("NOT_FOUND"))
        let added = try await server.call(endpoint: "records/modify", database: "shared", user: "bob", body: """
            {"zoneID": \(Self.sharedZone), "operations": [{"operationType": "create", "record": {"recordName": "bobs-pick",
              "recordType": "Restaurant", "parent": {"recordName": "friday"}, "fields": {"name": {"value": "Bob's pick"}}}}]}
            """)
        #expect(added.json.at("records", "0", "created", "userRecordName") == .string("_bob"), "\(added.json)")
        let changes = try await server.call(endpoint: "changes/zone", database: "shared", user: "bob", body: """
            {"zones": [{"zoneID": \(Self.sharedZone)}]}
            """)
        // The share itself comes with its records: a participant reads the share it is in, as
        // CloudKit's participants fetch the CKShare (they cannot write it).
        #expect(Self.names(changes.json.at("zones", "0", "records")) == ["bobs-pick", "friday", "friday-share", "homei"])

        // carol, read-only, is refused a write.
        _ = try await server.call(endpoint: "records/accept", database: "public", user: "carol", body: #"{"shortGUIDs": ["\#(guid)"]}"#)
        let refused = try await server.call(endpoint: "records/modify", database: "shared", user: "carol", body: """
            {"zoneID": \(Self.sharedZone), "operations": [{"operationType": "forceUpdate", "record": {"recordName": "homei",
              "recordType": "Restaurant", "fields": {"name": {"value": "Carol's"}}}}]}
            """)
        #expect(refused.json.at("records", "0", "serverErrorCode") == .string("ACCESS_DENIED"), "\(refused.json)")

        // alice removes bob: his reads, writes and old tokens stop; the zone is reported deleted.
        let current = try await server.call(endpoint: "records/lookup", database: "private", user: "alice",
                                            body: #"{"zoneID": {"zoneName": "Lists"}, "records": [{"recordName": "friday-share"}]}"#)
        let tag = try #require(current.json.at("records", "0", "recordChangeTag")?.stringValue)
        let removed = try await server.call(endpoint: "records/modify", database: "private", user: "alice", body: """
            {"zoneID": {"zoneName": "Lists"}, "operations": [{"operationType": "update", "record": {"recordName": "friday-share",
              "recordType": "cloudkit.share", "recordChangeTag": "\(tag)", "fields": {},
              "participants": [{"userIdentity": {"userRecordName": "_carol"}, "permission": "READ_ONLY", "type": "USER"}]}}]}
            """)
        #expect(removed.status == 200, "\(removed.json)")
        let statuses = removed.json.at("records", "0", "participants")?.arrayValue?.compactMap { participant -> String? in
            guard participant.at("userIdentity", "userRecordName") == .string("_bob") else { return nil }
            return participant["acceptanceStatus"]?.stringValue
        }
        #expect(statuses == ["REMOVED"])
        let gone = try await server.call(endpoint: "records/lookup", database: "shared", user: "bob",
                                         body: #"{"zoneID": \#(Self.sharedZone), "records": [{"recordName": "friday"}]}"#)
        #expect(gone.json.at("records", "0", "serverErrorCode") == .string("ZONE_NOT_FOUND"), "\(gone.json)")
        let lateWrite = try await server.call(endpoint: "records/modify", database: "shared", user: "bob", body: """
            {"zoneID": \(Self.sharedZone), "operations": [{"operationType": "create", "record": {"recordName": "late",
              "recordType": "Restaurant", "parent": {"recordName": "friday"}, "fields": {}}}]}
            """)
        #expect(lateWrite.json.at("records", "0", "serverErrorCode") == .string("ZONE_NOT_FOUND"))
        let deleted = try await server.call(endpoint: "changes/database", database: "shared", user: "bob",
                                            body: #"{"syncToken": "\#(syncToken)"}"#)
        #expect(deleted.json.at("zones", "0", "deleted") == .bool(true), "\(deleted.json)")
        #expect(deleted.json.at("zones", "0", "zoneID", "ownerRecordName") == .string("_alice"))
        let oldToken = try await server.call(endpoint: "changes/zone", database: "shared", user: "bob", body: """
            {"zones": [{"zoneID": \(Self.sharedZone)}]}
            """)
        #expect(oldToken.json.at("zones", "0", "serverErrorCode") == .string("ZONE_NOT_FOUND") || oldToken.status == 404, "\(oldToken.json)")
        let resolveRemoved = try await server.call(endpoint: "records/resolve", database: "public", user: "bob",
                                                   body: #"{"shortGUIDs": [{"value": "\#(guid)"}]}"#)
        #expect(resolveRemoved.json.at("results", "0", "serverErrorCode") == .string("PARTICIPANT_MAY_NEED_VERIFICATION"))
    }

    @Test func refusalsForStrangersSecondSharesAndBadGUIDs() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let share = try await Self.aliceSharesFriday(server)
        let guid = try #require(share["shortGUID"]?.stringValue)

        // dave was never invited.
        let dave = try await server.call(endpoint: "records/resolve", database: "public", user: "dave",
                                         body: #"{"shortGUIDs": [{"value": "\#(guid)"}]}"#)
        #expect(dave.json.at("results", "0", "serverErrorCode") == .string("PARTICIPANT_MAY_NEED_VERIFICATION"))
        #expect(dave.json.at("results", "0", "share") == nil, "no metadata")
        let daveAccept = try await server.call(endpoint: "records/accept", database: "public", user: "dave",
                                               body: #"{"shortGUIDs": [{"value": "\#(guid)"}]}"#)
        #expect(daveAccept.json.at("results", "0", "serverErrorCode") == .string("PARTICIPANT_MAY_NEED_VERIFICATION"))
        let daveLookup = try await server.call(endpoint: "records/lookup", database: "shared", user: "dave",
                                               body: #"{"zoneID": \#(Self.sharedZone), "records": [{"recordName": "friday"}]}"#)
        #expect(daveLookup.json.at("records", "0", "serverErrorCode") == .string("ZONE_NOT_FOUND"))
        let daveQuery = try await server.call(endpoint: "records/query", database: "shared", user: "dave",
                                              body: #"{"zoneID": \#(Self.sharedZone), "query": {"recordType": "Restaurant"}}"#)
        #expect(daveQuery.status == 404 && daveQuery.json["serverErrorCode"] == .string("ZONE_NOT_FOUND"), "\(daveQuery.json)")
        let noAccount = try await server.call(endpoint: "records/resolve", database: "public", body: #"{"shortGUIDs": ["\#(guid)"]}"#)
        #expect(noAccount.status == 421)

        // A second share of the same record.
        let second = try await server.call(endpoint: "records/modify", database: "private", user: "alice", body: """
            {"zoneID": {"zoneName": "Lists"}, "operations": [{"operationType": "create", "record": {"recordName": "other-share",
              "recordType": "cloudkit.share", "rootRecord": {"recordName": "friday"}, "fields": {}}}]}
            """)
        #expect(second.json.at("records", "0", "serverErrorCode") == .string("ALREADY_SHARED"), "\(second.json)")

        // Tampered, unknown and malformed short GUIDs.
        let flipped = String(guid.dropLast()) + (guid.hasSuffix("A") ? "B" : "A")
        let bad = try await server.call(endpoint: "records/resolve", database: "public", user: "bob", body: """
            {"shortGUIDs": [{"value": "\(flipped)"}, {"value": "not-a-guid"}, {"value": "../../etc/passwd"}]}
            """)
        for index in ["0", "1", "2"] {
            #expect(bad.json.at("results", index, "serverErrorCode") == .string("NOT_FOUND"), "\(bad.json)")
        }
        let malformed = try await server.call(endpoint: "records/resolve", database: "public", user: "bob", body: #"{"shortGUIDs": [{"value": 7}]}"#)
        #expect(malformed.status == 400)
        let badEnum = try await server.call(endpoint: "records/modify", database: "private", user: "alice", body: """
            {"zoneID": {"zoneName": "Lists"}, "operations": [{"operationType": "create", "record": {"recordName": "x-share",
              "recordType": "cloudkit.share", "rootRecord": {"recordName": "note"}, "publicPermission": "EVERYONE", "fields": {}}}]}
            """)
        #expect(badEnum.status == 400 || badEnum.json.at("records", "0", "serverErrorCode") == .string("BAD_REQUEST"), "\(badEnum.json)")
    }

    @Test func theSharePageRevealsOnlyWhatAPublicLinkMay() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let share = try await Self.aliceSharesFriday(server)
        let guid = try #require(share["shortGUID"]?.stringValue)
        let privatePage = try await TestServer.sendRaw(.GET, "\(server.baseURL)/share/\(guid)")
        let privateHTML = String(decoding: privatePage.bytes, as: UTF8.self)
        #expect(privatePage.status == 200)
        #expect(privateHTML.contains("foodpin accept"))
        #expect(!privateHTML.contains("Friday") && !privateHTML.contains("alice"), "a private share's page names nothing")

        _ = try await server.call(endpoint: "zones/modify", database: "private", user: "alice",
                                  body: #"{"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "Open"}}}]}"#)
        let open = try await server.call(endpoint: "records/modify", database: "private", user: "alice", body: """
            {"zoneID": {"zoneName": "Open"}, "operations": [{"operationType": "create", "record": {"recordName": "cloudkit.zoneshare",
              "recordType": "cloudkit.share", "publicPermission": "READ_ONLY", "fields": {"cloudkit.title": {"value": "<b>Team</b> lunch"}}}}]}
            """)
        let openGUID = try #require(open.json.at("records", "0", "shortGUID")?.stringValue, "\(open.json)")
        let publicPage = try await TestServer.sendRaw(.GET, "\(server.baseURL)/share/\(openGUID)")
        let publicHTML = String(decoding: publicPage.bytes, as: UTF8.self)
        #expect(publicHTML.contains("&lt;b&gt;Team&lt;/b&gt; lunch") && publicHTML.contains("alice"))
        #expect(publicHTML.contains("read-only"))

        let flipped = String(guid.dropLast()) + (guid.hasSuffix("A") ? "B" : "A")
        #expect(try await TestServer.sendRaw(.GET, "\(server.baseURL)/share/\(flipped)").status == 404)
        #expect(try await TestServer.sendRaw(.GET, "\(server.baseURL)/share/%3Cscript%3E").status == 404)
    }
}
