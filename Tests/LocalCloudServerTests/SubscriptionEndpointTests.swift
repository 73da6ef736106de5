import Foundation
import LocalCloud
import NIOHTTP1
import Testing
@testable import LocalCloudServer

@Suite("subscriptions endpoints")
struct SubscriptionEndpointTests {
    @Test func createListLookupUpdateDelete() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let created = try await server.call(endpoint: "subscriptions/modify", user: "alice", body: """
            {"operations": [{"operationType": "create", "subscription": {"subscriptionID": "thai", "subscriptionType": "query",
              "query": {"recordType": "Restaurant", "filterBy": [{"comparator": "EQUALS", "fieldName": "type",
                                                                  "fieldValue": {"value": "Thai", "type": "STRING"}}]},
              "firesOn": ["create", "update"], "firesOnce": false,
              "notificationInfo": {"alertBody": "New Thai place", "shouldBadge": true}}}]}
            """)
        #expect(created.status == 200, "\(created.json)")
        let saved = try #require(created.json.at("subscriptions", "0"))
        #expect(saved["subscriptionID"] == .string("thai"))
        #expect(saved["subscriptionType"] == .string("query"))
        #expect(saved["firesOn"] == .array([.string("create"), .string("update")]))
        #expect(saved["firesOnce"] == .bool(false))
        #expect(saved["zoneWide"] == .bool(false))
        #expect(saved.at("query", "recordType") == .string("Restaurant"))
        #expect(saved.at("query", "filterBy", "0", "comparator") == .string("EQUALS"))
        #expect(saved.at("query", "filterBy", "0", "fieldName") == .string("type"))
        #expect(saved.at("query", "filterBy", "0", "fieldValue", "value") == .string("Thai"))
        #expect(saved.at("notificationInfo", "alertBody") == .string("New Thai place"))
        #expect(saved.at("notificationInfo", "shouldBadge") == .bool(true))

        let again = try await server.call(endpoint: "subscriptions/modify", user: "alice", body: """
            {"operations": [{"operationType": "create", "subscription": {"subscriptionID": "thai", "query": {"recordType": "Restaurant"}}}]}
            """)
        #expect(again.json.at("subscriptions", "0", "serverErrorCode") == .string("EXISTS"))
        #expect(again.json.at("subscriptions", "0", "subscriptionID") == .string("thai"))

        let listed = try await server.call(.GET, endpoint: "subscriptions/list", user: "alice")
        #expect(listed.status == 200)
        #expect(listed.json.at("subscriptions")?.arrayValue?.count == 1)
        #expect(listed.json.at("subscriptions", "0", "subscriptionID") == .string("thai"))
        let others = try await server.call(.GET, endpoint: "subscriptions/list", user: "bob")
        #expect(others.json.at("subscriptions") == .array([]), "subscriptions are per user")

        let lookup = try await server.call(endpoint: "subscriptions/lookup", user: "alice", body: """
            {"subscriptions": [{"subscriptionID": "thai"}, {"subscriptionID": "nope"}]}
            """)
        #expect(lookup.json.at("subscriptions", "0", "subscriptionID") == .string("thai"))
        #expect(lookup.json.at("subscriptions", "1", "subscriptionID") == .string("nope"))
        #expect(lookup.json.at("subscriptions", "1", "serverErrorCode") == .string("NOT_FOUND"))

        let updated = try await server.call(endpoint: "subscriptions/modify", user: "alice", body: """
            {"operations": [{"operationType": "update", "subscription": {"subscriptionID": "thai", "subscriptionType": "query",
              "query": {"recordType": "Restaurant"}, "firesOn": ["delete"], "firesOnce": true}},
                            {"operationType": "update", "subscription": {"subscriptionID": "ghost", "query": {"recordType": "Restaurant"}}}]}
            """)
        #expect(updated.json.at("subscriptions", "0", "firesOn") == .array([.string("delete")]))
        #expect(updated.json.at("subscriptions", "0", "firesOnce") == .bool(true))
        #expect(updated.json.at("subscriptions", "1", "serverErrorCode") == .string("NOT_FOUND"))

        let deleted = try await server.call(endpoint: "subscriptions/modify", user: "alice", body: """
            {"operations": [{"operationType": "delete", "subscription": {"subscriptionID": "thai"}},
                            {"operationType": "delete", "subscription": {"subscriptionID": "thai2"}}]}
            """)
        #expect(deleted.json.at("subscriptions", "0", "subscriptionID") == .string("thai"))
        #expect(deleted.json.at("subscriptions", "0", "deleted") == .bool(true))
        #expect(deleted.json.at("subscriptions", "1", "serverErrorCode") == .string("NOT_FOUND"))
        let empty = try await server.call(.GET, endpoint: "subscriptions/list", user: "alice")
        #expect(empty.json.at("subscriptions") == .array([]))
    }

    @Test func zoneSubscriptionsInThePrivateDatabase() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let zone = try await server.call(endpoint: "zones/modify", database: "private", user: "alice", body: """
            {"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "Favourites"}}}]}
            """)
        #expect(zone.status == 200, "\(zone.json)")
        let created = try await server.call(endpoint: "subscriptions/modify", database: "private", user: "alice", body: """
            {"operations": [{"operationType": "create", "subscription": {"subscriptionID": "favs", "subscriptionType": "zone",
              "zoneID": {"zoneName": "Favourites"}, "zoneWide": true}}]}
            """)
        #expect(created.json.at("subscriptions", "0", "subscriptionType") == .string("zone"))
        #expect(created.json.at("subscriptions", "0", "zoneWide") == .bool(true))
        #expect(created.json.at("subscriptions", "0", "zoneID", "zoneName") == .string("Favourites"))
        // CloudKit allows zone subscriptions in the private database only.
        let inPublic = try await server.call(endpoint: "subscriptions/modify", user: "alice", body: """
            {"operations": [{"operationType": "create", "subscription": {"subscriptionID": "pub", "subscriptionType": "zone",
              "zoneID": {"zoneName": "Favourites"}}}]}
            """)
        #expect(inPublic.status == 200)
        #expect(inPublic.json.at("subscriptions", "0", "serverErrorCode") == .string("BAD_REQUEST"))
        #expect(inPublic.json.at("subscriptions", "0", "reason")?.stringValue?.isEmpty == false)
    }

    @Test func badInputAndAuthentication() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let anonymous = try await server.call(endpoint: "subscriptions/modify", body: """
            {"operations": [{"operationType": "create", "subscription": {"query": {"recordType": "Restaurant"}}}]}
            """)
        #expect(anonymous.status == 421)
        #expect(anonymous.json["serverErrorCode"] == .string("AUTHENTICATION_REQUIRED"))
        let unknownType = try await server.call(endpoint: "subscriptions/modify", user: "alice", body: """
            {"operations": [{"operationType": "upsert", "subscription": {"subscriptionID": "x"}}]}
            """)
        #expect(unknownType.status == 400)
        let badFiresOn = try await server.call(endpoint: "subscriptions/modify", user: "alice", body: """
            {"operations": [{"operationType": "create", "subscription": {"subscriptionID": "x", "query": {"recordType": "Restaurant"},
              "firesOn": ["explode"]}}]}
            """)
        #expect(badFiresOn.json.at("subscriptions", "0", "serverErrorCode") == .string("BAD_REQUEST"))
        let noOperations = try await server.call(endpoint: "subscriptions/modify", user: "alice", body: "{}")
        #expect(noOperations.status == 400)
        let lookupWithoutIDs = try await server.call(endpoint: "subscriptions/lookup", user: "alice", body: #"{"subscriptions": [{}]}"#)
        #expect(lookupWithoutIDs.status == 400)
    }
}
