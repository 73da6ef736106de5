import Foundation
import LocalCloud
import NIOHTTP1
import Testing
@testable import LocalCloudServer

@Suite("tokens and the webcourier long-poll")
struct WebcourierTests {
    func tokenURL(_ server: TestServer, _ endpoint: String, user: String?, service: String = "device") -> String {
        var url = "\(server.baseURL)/\(service)/1/\(server.container)/development/tokens/\(endpoint)?ckAPIToken=\(StaticAuthenticator.apiToken)"
        if let user { url += "&ckWebAuthToken=user-\(user)" }
        return url
    }

    @Test func tokensCreateAndRegisterShapes() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let created = try await TestServer.send(.POST, tokenURL(server, "create", user: "alice"), body: Array(#"{"apnsEnvironment": "production"}"#.utf8))
        #expect(created.status == 200, "\(created.json)")
        #expect(created.json["apnsEnvironment"] == .string("production"))
        let token = try #require(created.json["apnsToken"]?.stringValue)
        let courier = try #require(created.json["webcourierURL"]?.stringValue)
        #expect(courier == server.baseURL + "/device/1/\(server.container)/development/webcourier?apnsToken=\(token)")

        let registered = try await TestServer.send(.POST, tokenURL(server, "register", user: "alice", service: "database"),
                                                   body: Array(#"{"apnsToken": "\#(token)", "apnsEnvironment": "production"}"#.utf8))
        #expect(registered.status == 200, "\(registered.json)")
        let someoneElses = try await TestServer.send(.POST, tokenURL(server, "register", user: "bob"),
                                                     body: Array(#"{"apnsToken": "\#(token)", "apnsEnvironment": "production"}"#.utf8))
        #expect(someoneElses.status == 403)
        // The signature's first character changed: its 6 bits are all signature (the last two
        // characters' were not: "xx" matched 1 token in 1,024).
        let parts = token.split(separator: ".", maxSplits: 1)
        let signature = try #require(parts.last)
        let forgedToken = "\(parts[0]).\(signature.first == "A" ? "B" : "A")\(signature.dropFirst())"
        let forged = try await TestServer.send(.POST, tokenURL(server, "register", user: "alice"),
                                               body: Array(#"{"apnsToken": "\#(forgedToken)", "apnsEnvironment": "production"}"#.utf8))
        #expect(forged.status == 400)
        let anonymous = try await TestServer.send(.POST, tokenURL(server, "create", user: nil), body: Array("{}".utf8))
        #expect(anonymous.status == 421)
        let badEnvironment = try await TestServer.send(.POST, tokenURL(server, "create", user: "alice"), body: Array(#"{"apnsEnvironment": "staging"}"#.utf8))
        #expect(badEnvironment.status == 400)
    }

    @Test func longPollReturnsTheNextNotificationThenTimesOut() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        try await server.subscribeToRestaurants(user: "alice")
        let created = try await TestServer.send(.POST, tokenURL(server, "create", user: "alice"), body: Array("{}".utf8))
        let courier = try #require(created.json["webcourierURL"]?.stringValue)

        // The first poll sets where this token's notifications start; nothing yet, so 204.
        let idle = try await TestServer.sendRaw(.GET, courier + "&timeout=0.2")
        #expect(idle.status == 204)

        // Saved between polls: the next poll returns it at once.
        try await server.createRestaurant("r1", user: "bob")
        let caughtUp = try await TestServer.send(.GET, courier)
        #expect(caughtUp.status == 200)
        #expect(caughtUp.json.at("ck", "qry", "rid") == .string("r1"))
        #expect(caughtUp.json.at("ck", "qry", "sid") == .string("restaurants"))

        // A poll that waits: a save while it waits ends it.
        let waiting = Task { try await TestServer.send(.GET, courier) }
        try await server.createRestaurant("r2", user: "bob")
        let live = try await waiting.value
        #expect(live.status == 200)
        #expect(live.json.at("ck", "qry", "rid") == .string("r2"))

        let drained = try await TestServer.sendRaw(.GET, courier + "&timeout=0.2")
        #expect(drained.status == 204)
        let bad = try await TestServer.send(.GET, "\(server.baseURL)/device/1/\(server.container)/development/webcourier?apnsToken=not-a-token")
        #expect(bad.status == 400)
    }

    @Test func aSaveBeforeTheFirstPollIsDeliveredAndCursorsSurviveARestart() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        try await server.subscribeToRestaurants(user: "alice")
        let created = try await TestServer.send(.POST, tokenURL(server, "create", user: "alice"), body: Array("{}".utf8))
        let courier = try #require(created.json["webcourierURL"]?.stringValue)
        let token = try #require(created.json["apnsToken"]?.stringValue)
        try await server.createRestaurant("early", user: "bob")
        let first = try await TestServer.send(.GET, courier + "&timeout=25")
        #expect(first.json.at("ck", "qry", "rid") == .string("early"))

        // Another server process over the same data directory continues where this one stopped.
        try await server.createRestaurant("later", user: "bob")
        let restarted = try WebcourierCursors(directory: server.dataDirectory)
        let cursor = try #require(try restarted.cursor(for: token))
        let stored = try String(contentsOf: server.dataDirectory.appendingPathComponent(WebcourierCursors.fileName), encoding: .isoLatin1)
        #expect(!stored.contains(token), "cursors are keyed by the token's hash")
        let next = try await TestServer.send(.GET, courier + "&timeout=25")
        #expect(next.json.at("ck", "qry", "rid") == .string("later"))
        #expect(try #require(try restarted.cursor(for: token)).sequence > cursor.sequence)
    }
}

@Suite("push tokens")
struct PushTokenTests {
    @Test func tokensSurviveARestartAndRejectTampering() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lcs-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let claims = PushTokens.Claims(container: "iCloud.A", environment: .production, user: "alice|x", apnsEnvironment: "production")
        let token = try PushTokens.load(from: directory).issue(claims)
        // Another process (or a restart) over the same data directory reads the same key.
        let restarted = try PushTokens.load(from: directory)
        #expect(try restarted.verify(token) == claims)
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(PushTokens.keyFileName).path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let other = FileManager.default.temporaryDirectory.appendingPathComponent("lcs-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: other) }
        #expect(throws: ServerError.self) { try PushTokens.load(from: other).verify(token) }
        var tampered = Array(token.utf8)
        tampered[3] = tampered[3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: ServerError.self) { try restarted.verify(String(decoding: tampered, as: UTF8.self)) }
    }

    @Test func cursorText() {
        #expect(NotificationCursor(text: "42") == NotificationCursor(sequence: 42, delivered: 1))
        #expect(NotificationCursor(text: "42.3") == NotificationCursor(sequence: 42, delivered: 3))
        #expect(NotificationCursor(text: "42.0") == nil)
        #expect(NotificationCursor(text: "-1") == nil)
        #expect(NotificationCursor(text: "x") == nil)
        #expect(NotificationCursor(text: "1.2.3") == nil)
        #expect(NotificationCursor(sequence: 7, delivered: 2).description == "7.2")
    }
}
