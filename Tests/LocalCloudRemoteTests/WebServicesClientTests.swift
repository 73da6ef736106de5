import Foundation
import LocalCloud
import Synchronization
import LocalCloudServerTesting
import Testing

/// The CloudKit Web Services client against a real `localcloud serve` over loopback HTTP.
@Suite("WebServicesClient against a real server")
struct WebServicesClientTests {
    static func restaurant(_ name: String, type: String = "Thai") -> JSONValue {
        .object(["recordName": .string(name), "recordType": .string("Restaurant"), "fields": .object([
            "name": .object(["value": .string(name), "type": .string("STRING")]),
            "type": .object(["value": .string(type), "type": .string("STRING")]),
        ])])
    }

    static func create(_ names: [String]) -> JSONValue {
        .object(["operations": .array(names.map { .object(["operationType": .string("create"), "record": restaurant($0)]) })])
    }

    @Test func createQueryAndLookUpRecords() async throws {
        let server = try await RemoteTestServer.start()
        defer { server.removeData() }
        let client = WebServicesClient(endpoint: try await server.endpoint(user: "alice"))
        let saved = try await client.database(.public, "records/modify", body: Self.create(["kin-khao", "lers-ros"]), idempotent: false)
        #expect(saved.at("records", "0", "recordName") == .string("kin-khao"))
        #expect(saved.at("records", "0", "recordChangeTag")?.stringValue?.isEmpty == false)

        let query = JSONValue.object(["query": .object([
            "recordType": .string("Restaurant"),
            "sortBy": .array([.object(["fieldName": .string("name"), "ascending": .bool(true)])]),
        ]), "resultsLimit": .int(1)])
        let page = try await client.database(.public, "records/query", body: query, idempotent: true)
        #expect(page.at("records", "0", "recordName") == .string("kin-khao"))
        let marker = try #require(page["continuationMarker"]?.stringValue)
        var next = query.objectValue ?? [:]
        next["continuationMarker"] = .string(marker)
        let nextQuery = JSONValue.object(next)
        let second = try await client.database(.public, "records/query", body: nextQuery, idempotent: true)
        #expect(second.at("records", "0", "recordName") == .string("lers-ros"))

        // Anonymous reads of the public database work; lookups report missing records per item.
        let anonymous = WebServicesClient(endpoint: try await server.endpoint(user: nil))
        let lookup = JSONValue.object(["records": .array([.object(["recordName": .string("kin-khao")]), .object(["recordName": .string("nope")])])])
        let found = try await anonymous.database(.public, "records/lookup", body: lookup, idempotent: true)
        #expect(found.at("records", "0", "fields", "name", "value") == .string("kin-khao"))
        #expect(found.at("records", "1", "serverErrorCode") == .string("NOT_FOUND"))
        await server.stop()
    }

    @Test func serverErrorsComeBackAsTheSameCloudErrorCodes() async throws {
        let server = try await RemoteTestServer.start()
        defer { server.removeData() }
        let anonymous = WebServicesClient(endpoint: try await server.endpoint(user: nil))
        let required = await cloudError { try await anonymous.database(.private, "records/query", body: .object([
            "query": .object(["recordType": .string("Restaurant")])]), idempotent: true) }
        #expect(required?.code == .notAuthenticated, "AUTHENTICATION_REQUIRED")

        var forged = try await server.endpoint(user: "alice")
        forged.apiToken = String(repeating: "0", count: 64)
        let forgedClient = WebServicesClient(endpoint: forged)
        let failed = await cloudError { try await forgedClient.database(.public, "users/current", body: nil, idempotent: true) }
        #expect(failed?.code == .notAuthenticated, "AUTHENTICATION_FAILED")

        let client = WebServicesClient(endpoint: try await server.endpoint(user: "alice"))
        let bad = await cloudError { try await client.database(.public, "records/modify", body: .object([
            "operations": .array([.object(["operationType": .string("frobnicate"), "record": Self.restaurant("x")])])]), idempotent: false) }
        #expect(bad?.code == .invalidArguments, "BAD_REQUEST")
        #expect(bad?.message.contains("frobnicate") == true, "the server's reason: \(bad?.message ?? "")")
        #expect(bad?.message.contains("\n") == false)
        await server.stop()
    }

    @Test func signInIssuesAWebAuthTokenAndAWrongPasswordIsRefused() async throws {
        let server = try await RemoteTestServer.start()
        defer { server.removeData() }
        let anonymous = WebServicesClient(endpoint: try await server.endpoint(user: nil))
        let token = try await anonymous.signIn(user: "bob", password: RemoteTestServer.password)
        #expect(token.count >= 100)
        var signedIn = try await server.endpoint(user: nil)
        signedIn.webAuthToken = token
        let signedInClient = WebServicesClient(endpoint: signedIn)
        let me = try await signedInClient.database(.public, "users/current", body: nil, idempotent: true)
        #expect(me["userRecordName"] == .string("_bob"))

        let wrong = await cloudError { try await anonymous.signIn(user: "bob", password: "wrong") }
        #expect(wrong?.code == .notAuthenticated)
        #expect(wrong?.message == "Wrong user name or password")
        await server.stop()
    }

    @Test func notificationsStreamAsServerSentEvents() async throws {
        let server = try await RemoteTestServer.start()
        defer { server.removeData() }
        let alice = WebServicesClient(endpoint: try await server.endpoint(user: "alice"))
        let bob = WebServicesClient(endpoint: try await server.endpoint(user: "bob"))
        _ = try await alice.database(.public, "subscriptions/modify", body: .object(["operations": .array([.object([
            "operationType": .string("create"),
            "subscription": .object(["subscriptionID": .string("all"), "subscriptionType": .string("query"),
                                     "query": .object(["recordType": .string("Restaurant")]), "firesOn": .array([.string("create")])]),
        ])])]), idempotent: false)

        let events = Mutex<[ServerSentEvent]>([])
        let stop = Atomic(false)
        let streaming = Task {
            try await alice.notifications(lastEventID: nil, onEvent: { event in events.withLock { $0.append(event) } },
                                          shouldStop: { stop.load(ordering: .relaxed) })
        }
        // Keep saving until an event arrives: the stream may open after the first save.
        let deadline = ContinuousClock.now + .seconds(20)
        var saved = 0
        while events.withLock({ $0.isEmpty }) && ContinuousClock.now < deadline {
            saved += 1
            let name = "bob-\(saved)"
            _ = try await bob.database(.public, "records/modify", body: Self.create([name]), idempotent: false)
            try await Task.sleep(for: .milliseconds(100))
        }
        stop.store(true, ordering: .relaxed)
        let ended = await streaming.result
        let first = try #require(events.withLock { $0.first })
        #expect(first.id?.isEmpty == false, "every event has an id for Last-Event-ID")
        let payload = try JSONValue.parse(Array(first.data.utf8))
        #expect(payload.at("ck", "qry", "sid") == .string("all"), "\(first.data)")
        #expect(payload.at("ck", "qry", "rid")?.stringValue?.hasPrefix("bob-") == true)
        if case .failure(let error as CloudError) = ended {
            #expect(error.code == .operationCancelled, "stopping the stream cancels it: \(error)")
        }
        await server.stop()
    }
}
