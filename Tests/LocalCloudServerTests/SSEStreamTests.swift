import AsyncHTTPClient
import Foundation
import LocalCloud
import NIOCore
import Logging
import NIOHTTP1
import ServiceLifecycle
import Synchronization
import Testing
@testable import LocalCloudServer

/// A server-sent-events reader over AsyncHTTPClient's streaming body: events collect in the
/// background until ``close()``.
final class SSEClient: Sendable {
    struct Event: Sendable {
        var id: String?
        /// The `event:` name; `nil` for plain messages (notifications).
        var name: String? = nil
        var data: String
        var json: JSONValue { (try? JSONValue.parse(Array(data.utf8))) ?? .null }
    }

    let status: Int
    let contentType: String?
    private let received = Mutex<(events: [Event], comments: [String])>(([], []))
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let endedFlag = Mutex(false)

    /// Whether the server closed the stream (or it failed).
    var ended: Bool { endedFlag.withLock { $0 } }

    private init(status: Int, contentType: String?) {
        self.status = status
        self.contentType = contentType
    }

    /// Opens the stream and returns once the response head arrived.
    static func connect(_ url: String, lastEventID: String? = nil) async throws -> SSEClient {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "text/event-stream")
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID) }
        let (heads, continuation) = AsyncStream.makeStream(of: SSEClient.self)
        let reader = Task {
            do {
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(600))
                let client = SSEClient(status: Int(response.status.code), contentType: response.headers.first(name: "Content-Type"))
                continuation.yield(client)
                continuation.finish()
                var pending: [UInt8] = []
                for try await buffer in response.body {
                    pending.append(contentsOf: buffer.readableBytesView)
                    while let end = Self.eventEnd(pending) {
                        client.parse(Array(pending[..<end]))
                        pending.removeFirst(end + 2)
                    }
                }
                client.endedFlag.withLock { $0 = true }
            } catch {
                continuation.finish()
            }
        }
        guard let client = await heads.first(where: { _ in true }) else {
            reader.cancel()
            throw CloudError(.networkFailure, "The event stream did not open")
        }
        client.task.withLock { $0 = reader }
        return client
    }

    private static func eventEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        for index in 0..<(bytes.count - 1) where bytes[index] == 0x0A && bytes[index + 1] == 0x0A { return index }
        return nil
    }

    private func parse(_ block: [UInt8]) {
        var id: String?
        var name: String?
        var data: [String] = []
        var comments: [String] = []
        for line in String(decoding: block, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") { comments.append(String(line.dropFirst()).trimmingCharacters(in: .whitespaces)) }
            else if line.hasPrefix("id: ") { id = String(line.dropFirst(4)) }
            else if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
            else if line.hasPrefix("data: ") { data.append(String(line.dropFirst(6))) }
        }
        received.withLock { received in
            received.comments.append(contentsOf: comments)
            if !data.isEmpty { received.events.append(Event(id: id, name: name, data: data.joined(separator: "\n"))) }
        }
    }

    var events: [Event] { received.withLock { $0.events } }
    var comments: [String] { received.withLock { $0.comments } }

    /// Waits (with a deadline, polling) until `count` events arrived; returns whether they did.
    func waitForEvents(_ count: Int, timeout: Duration = .seconds(60)) async -> Bool {
        await eventually(timeout: timeout) { self.events.count >= count }
    }

    func close() {
        task.withLock { $0?.cancel() }
    }

    deinit { task.withLock { $0?.cancel() } }
}

/// Polls `condition` every 10 ms until it holds or `timeout` passes.
func eventually(timeout: Duration = .seconds(60), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try await condition()
}

extension TestServer {
    /// `/database/1/<container>/development/notifications` as `user`.
    func notificationsURL(user: String?) -> String {
        var url = "\(baseURL)/database/1/\(container)/development/notifications?ckAPIToken=\(StaticAuthenticator.apiToken)"
        if let user { url += "&ckWebAuthToken=user-\(user)" }
        return url
    }

    /// A query subscription on every Restaurant in the public database, for `user`.
    func subscribeToRestaurants(user: String, id: String = "restaurants") async throws {
        let response = try await call(endpoint: "subscriptions/modify", user: user, body: """
            {"operations": [{"operationType": "create", "subscription": {"subscriptionID": "\(id)", "subscriptionType": "query",
              "query": {"recordType": "Restaurant"}, "firesOn": ["create", "update", "delete"]}}]}
            """)
        guard response.status == 200, response.json.at("subscriptions", "0", "subscriptionID") == .string(id) else {
            throw CloudError(.internalError, "subscribe failed: \(response.status) \(response.json)")
        }
    }

    func createRestaurant(_ name: String, user: String) async throws {
        let response = try await call(endpoint: "records/modify", user: user, body: """
            {"operations": [{"operationType": "create", "record": {"recordName": "\(name)", "recordType": "Restaurant",
              "fields": {"name": {"value": "\(name)"}}}}]}
            """)
        guard response.status == 200, response.json.at("records", "0", "recordName") == .string(name) else {
            throw CloudError(.internalError, "save failed: \(response.status) \(response.json)")
        }
    }
}

@Suite("SSE notification stream")
struct SSEStreamTests {
    @Test func deliversAnotherUsersCreateAsTheCKPayload() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        try await server.subscribeToRestaurants(user: "alice")
        let stream = try await SSEClient.connect(server.notificationsURL(user: "alice"))
        defer { stream.close() }
        #expect(stream.status == 200)
        #expect(stream.contentType?.hasPrefix("text/event-stream") == true)
        #expect(await eventually { stream.comments.contains("connected") })

        try await server.createRestaurant("r1", user: "bob")
        #expect(await stream.waitForEvents(1, timeout: .seconds(60)))
        let event = try #require(stream.events.first)
        #expect(event.id.flatMap { Int64($0) } != nil, "the id is the change-log sequence")
        let query = try #require(event.json.at("ck", "qry"))
        #expect(query["sid"] == .string("restaurants"))
        #expect(query["rid"] == .string("r1"))
        #expect(query["fo"] == .int(1))
        #expect(query["zid"] == .string("_defaultZone"))
        #expect(query["dbs"] == .int(1))
        #expect(event.json.at("ck", "cid") == .string(server.container))
    }

    @Test func lastEventIDCatchesUpWithoutDuplicates() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        try await server.subscribeToRestaurants(user: "alice")
        let first = try await SSEClient.connect(server.notificationsURL(user: "alice"))
        #expect(await eventually { first.comments.contains("connected") })
        try await server.createRestaurant("before", user: "bob")
        #expect(await first.waitForEvents(1))
        let lastID = try #require(first.events.last?.id)
        first.close()

        // Saved while the client is away.
        try await server.createRestaurant("away1", user: "bob")
        try await server.createRestaurant("away2", user: "bob")

        let again = try await SSEClient.connect(server.notificationsURL(user: "alice"), lastEventID: lastID)
        defer { again.close() }
        #expect(await again.waitForEvents(2))
        // A live save after the catch-up: when it arrives, everything before it has.
        try await server.createRestaurant("after", user: "bob")
        #expect(await again.waitForEvents(3))
        let names = again.events.compactMap { $0.json.at("ck", "qry", "rid")?.stringValue }
        #expect(names == ["away1", "away2", "after"])
        let ids = again.events.compactMap { $0.id.flatMap { Int64($0) } }
        #expect(ids == ids.sorted() && Set(ids).count == 3 && ids.allSatisfy { $0 > Int64(lastID)! })
    }

    @Test func updatesDeletesAndZoneNotificationsCarryTheirReasonAndKind() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        try await server.subscribeToRestaurants(user: "alice")
        _ = try await server.call(endpoint: "zones/modify", database: "private", user: "alice", body: """
            {"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "Favourites"}}}]}
            """)
        _ = try await server.call(endpoint: "subscriptions/modify", database: "private", user: "alice", body: """
            {"operations": [{"operationType": "create", "subscription": {"subscriptionID": "favs", "subscriptionType": "zone",
              "zoneID": {"zoneName": "Favourites"}}}]}
            """)
        let stream = try await SSEClient.connect(server.notificationsURL(user: "alice"))
        defer { stream.close() }
        #expect(await eventually { stream.comments.contains("connected") })
        try await server.createRestaurant("r1", user: "bob")
        let lookup = try await server.call(endpoint: "records/lookup", body: #"{"records": [{"recordName": "r1"}]}"#)
        let tag = try #require(lookup.json.at("records", "0", "recordChangeTag")?.stringValue)
        _ = try await server.call(endpoint: "records/modify", user: "bob", body: """
            {"operations": [{"operationType": "update", "record": {"recordName": "r1", "recordType": "Restaurant",
              "recordChangeTag": "\(tag)", "fields": {"name": {"value": "R1"}}}}]}
            """)
        _ = try await server.call(endpoint: "records/modify", user: "bob", body: """
            {"operations": [{"operationType": "forceDelete", "record": {"recordName": "r1"}}]}
            """)
        _ = try await server.call(endpoint: "records/modify", database: "private", user: "alice", body: """
            {"operations": [{"operationType": "create", "record": {"recordName": "fav1", "recordType": "Restaurant", "fields": {}}}],
             "zoneID": {"zoneName": "Favourites"}}
            """)
        #expect(await stream.waitForEvents(4))
        let events = stream.events
        #expect(events.prefix(3).map { $0.json.at("ck", "qry", "fo") } == [.int(1), .int(2), .int(3)])
        let zone = try #require(events.last?.json.at("ck", "fet"))
        #expect(zone["sid"] == .string("favs"))
        #expect(zone["zid"] == .string("Favourites"))
        #expect(zone["dbs"] == .int(2))
    }

    @Test func oneChangeFiringTwoSubscriptionsResumesBetweenThem() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        try await server.subscribeToRestaurants(user: "alice", id: "a-first")
        try await server.subscribeToRestaurants(user: "alice", id: "b-second")
        let stream = try await SSEClient.connect(server.notificationsURL(user: "alice"))
        #expect(await eventually { stream.comments.contains("connected") })
        try await server.createRestaurant("r1", user: "bob")
        #expect(await stream.waitForEvents(2))
        let ids = stream.events.compactMap(\.id)
        stream.close()
        // Two events of one change: the second id counts within the change.
        #expect(ids.count == 2 && ids[1] == ids[0] + ".2")

        // Resuming after the first gets the second, and nothing else.
        guard let firstID = ids.first else {
            Issue.record("No event arrived")
            return
        }
        let resumed = try await SSEClient.connect(server.notificationsURL(user: "alice"), lastEventID: firstID)
        defer { resumed.close() }
        #expect(await resumed.waitForEvents(1))
        try await server.createRestaurant("r2", user: "bob")
        #expect(await resumed.waitForEvents(3))
        let got = resumed.events.map { "\($0.json.at("ck", "qry", "rid")?.stringValue ?? "?")/\($0.json.at("ck", "qry", "sid")?.stringValue ?? "?")" }
        #expect(got == ["r1/b-second", "r2/a-first", "r2/b-second"])
    }

    @Test func aLastEventIDOlderThanACompactionGetsAResetEvent() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        try await server.subscribeToRestaurants(user: "alice")
        let first = try await SSEClient.connect(server.notificationsURL(user: "alice"))
        #expect(await eventually { first.comments.contains("connected") })
        try await server.createRestaurant("r1", user: "bob")
        #expect(await first.waitForEvents(1))
        let lastID = try #require(first.events.last?.id)
        first.close()
        try await server.createRestaurant("r2", user: "bob")
        let owner = Container(configuration: .init(containerIdentifier: server.container, dataDirectory: server.dataDirectory, user: nil))
        try await owner.compactChangeLog(keepingAfter: try await owner.currentChangeToken())

        let again = try await SSEClient.connect(server.notificationsURL(user: "alice"), lastEventID: lastID)
        defer { again.close() }
        #expect(await again.waitForEvents(1))
        #expect(again.events.first?.name == "reset")
        #expect(again.events.first?.id == nil)
        try await server.createRestaurant("r3", user: "bob")
        #expect(await again.waitForEvents(2))
        #expect(again.events.last?.json.at("ck", "qry", "rid") == .string("r3"))
    }

    @Test func aStreamOutlivesTheReadTimeout() async throws {
        // The read timeout is for a client that sends nothing; an open stream is a request in
        // progress and must not be cut when it runs out.
        let server = try await TestServer.start { $0.readTimeout = .seconds(1) }
        defer { Task { await server.stop() } }
        try await server.subscribeToRestaurants(user: "alice")
        let stream = try await SSEClient.connect(server.notificationsURL(user: "alice"))
        defer { stream.close() }
        #expect(await eventually { stream.comments.contains("connected") })
        // A connection opened after the stream and sending nothing is closed by the deadline:
        // once it is, the stream has been open for longer than the timeout.
        let port = try #require(URL(string: server.baseURL)?.port)
        #expect(try await BlockingThread.run("idle") { try IdleConnection.waitUntilClosed(port: port, upTo: 60) })
        try await server.createRestaurant("r1", user: "bob")
        #expect(await stream.waitForEvents(1))
        #expect(stream.events.first?.json.at("ck", "qry", "rid") == .string("r1"))
    }

    @Test func onlyTheSubscribersStreamCarriesTheNotification() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        try await server.subscribeToRestaurants(user: "alice")
        let alice = try await SSEClient.connect(server.notificationsURL(user: "alice"))
        let carol = try await SSEClient.connect(server.notificationsURL(user: "carol"))
        defer { alice.close(); carol.close() }
        #expect(await eventually { alice.comments.contains("connected") && carol.comments.contains("connected") })
        try await server.createRestaurant("r1", user: "bob")
        #expect(await alice.waitForEvents(1))
        #expect(carol.events.isEmpty)
    }

    @Test func needsASignedInUserAndAValidLastEventID() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let anonymous = try await TestServer.send(.GET, server.notificationsURL(user: nil))
        #expect(anonymous.status == 421)
        #expect(anonymous.json["serverErrorCode"] == .string("AUTHENTICATION_REQUIRED"))
        #expect(anonymous.json["redirectURL"]?.stringValue?.hasSuffix("/signin") == true)
        let badID = try await TestServer.send(.GET, server.notificationsURL(user: "alice"), headers: [("Last-Event-ID", "nope")])
        #expect(badID.status == 400)
    }

    @Test func stopsWhenTheServerStopsWithAStreamOpen() async throws {
        let server = try await TestServer.start()
        let stream = try await SSEClient.connect(server.notificationsURL(user: "alice"))
        defer { stream.close() }
        #expect(await eventually { stream.comments.contains("connected") })
        let done = Flag()
        Task {
            await server.stop()
            done.set()
        }
        #expect(await eventually(timeout: .seconds(30)) { done.isSet })
    }

    @Test func gracefulShutdownDoesNotWaitForOpenStreams() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lcs-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServerConfiguration(dataDirectory: directory)
        configuration.port = 0
        var logger = Logger(label: "test-server")
        logger.logLevel = .warning
        let server = CloudServer(configuration: configuration, authenticator: StaticAuthenticator(), logger: logger)
        let (urls, continuation) = AsyncStream.makeStream(of: String.self)
        let app = try server.makeApplication { url in continuation.yield(url) }
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let done = Flag()
        Task {
            try? await group.run()
            done.set()
        }
        let base = try #require(await urls.first { _ in true })
        let url = "\(base)/database/1/iCloud.com.example.Test/development/notifications?ckAPIToken=\(StaticAuthenticator.apiToken)&ckWebAuthToken=user-alice"
        let stream = try await SSEClient.connect(url)
        defer { stream.close() }
        #expect(await eventually { stream.comments.contains("connected") })
        await group.triggerGracefulShutdown()
        #expect(await eventually(timeout: .seconds(30)) { done.isSet })
    }
}

/// A flag one task sets and another polls.
final class Flag: Sendable {
    private let state = Mutex(false)
    func set() { state.withLock { $0 = true } }
    var isSet: Bool { state.withLock { $0 } }
}
