import Foundation
import LocalCloud
import NIOHTTP1
import Synchronization
import Testing
@testable import LocalCloudServer

/// Signing out, a web auth token's expiry and an API token's revocation end the user's push: open SSE
/// streams close (with `event: signedOut`), waiting webcourier polls answer 401, and push tokens are refused.
@Suite("sign-out ends push")
struct PushSignOutTests {
    /// A signed-in user's push: the SSE stream and a push token, over real tokens.
    struct Push {
        let server: TestServer
        let apiToken: String
        let webAuthToken: String

        var query: String { "ckAPIToken=\(apiToken)&ckWebAuthToken=\(webAuthToken)" }

        func stream() async throws -> SSEClient {
            try await SSEClient.connect("\(server.baseURL)/database/1/\(server.container)/development/notifications?\(query)")
        }

        func subscribe() async throws {
            let response = try await server.send(.POST, "subscriptions/modify", apiToken: apiToken, webAuthToken: webAuthToken, body: """
                {"operations": [{"operationType": "create", "subscription": {"subscriptionID": "restaurants", "subscriptionType": "query",
                  "query": {"recordType": "Restaurant"}, "firesOn": ["create", "update", "delete"]}}]}
                """)
            guard response.status == 200 else { throw CloudError(.internalError, "subscribe failed: \(response.status) \(response.json)") }
        }

        func create(_ name: String) async throws {
            let response = try await server.send(.POST, "records/modify", apiToken: apiToken, webAuthToken: webAuthToken, body: """
                {"operations": [{"operationType": "create", "record": {"recordName": "\(name)", "recordType": "Restaurant",
                  "fields": {"name": {"value": "\(name)"}}}}]}
                """)
            guard response.status == 200 else { throw CloudError(.internalError, "save failed: \(response.status) \(response.json)") }
        }

        /// The webcourier URL of a new push token.
        func pushToken() async throws -> String {
            let created = try await TestServer.send(.POST, "\(server.baseURL)/device/1/\(server.container)/development/tokens/create?\(query)",
                                                    body: Array("{}".utf8))
            guard created.status == 200, let url = created.json["webcourierURL"]?.stringValue else {
                throw CloudError(.internalError, "tokens/create failed: \(created.status) \(created.json)")
            }
            return url
        }
    }

    static func push(_ server: TestServer, user: String, now: Date = Date()) async throws -> Push {
        let identity = try server.identity
        let apiToken = try await identity.createAPIToken(container: server.container, environment: .development)
        if try await identity.user(named: user, container: server.container) == nil {
            try await identity.addUser(user, password: "pw-\(user)", container: server.container, hasher: PasswordHasher(cost: 4))
        }
        let token = try await identity.issueWebAuthToken(user: user, container: server.container, lifetime: .seconds(3600), now: now)
        return Push(server: server, apiToken: apiToken, webAuthToken: token)
    }

    /// The issue's bound: push ends within 2 s of a sign-out, expiry or revocation. Nothing polls
    /// (the identity store rings ``PushSessions``, and expiry is a timer to its instant), so the
    /// delay is one store lookup and the stream's close.
    static let bound: Duration = .seconds(2)

    @Test func signingOutClosesStreamsAndEndsPushTokensOfThatUserOnly() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let alice = try await Self.push(server, user: "alice")
        let bob = try await Self.push(server, user: "bob")
        try await alice.subscribe()
        try await bob.subscribe()
        let alicesStreams = [try await alice.stream(), try await alice.stream()]
        let bobsStream = try await bob.stream()
        defer { (alicesStreams + [bobsStream]).forEach { $0.close() } }
        for stream in alicesStreams + [bobsStream] {
            #expect(stream.status == 200)
            #expect(await eventually { stream.comments.contains("connected") })
        }
        let courier = try await alice.pushToken()

        try await bob.create("before")
        for stream in alicesStreams + [bobsStream] { #expect(await stream.waitForEvents(1)) }
        let first = try await TestServer.send(.GET, courier + "&timeout=10")
        #expect(first.status == 200, "the push token delivers while alice is signed in")

        // A poll waiting for the next notification when the sign-out lands.
        let waiting = Task { try await TestServer.send(.GET, courier + "&timeout=30") }
        #expect(await eventually { server.cloudServer.pushSessions.count >= 4 }, "three streams and the waiting poll")

        // What `localcloud users signout alice` does.
        #expect(try await server.identity.signOut(user: "alice", container: server.container) == 1)
        for stream in alicesStreams {
            #expect(await eventually(timeout: Self.bound) { stream.ended }, "alice's stream closes within 2 s")
            #expect(stream.events.last?.name == "signedOut")
        }
        let waited = try await waiting.value
        #expect(waited.status == 401, "the waiting poll ends: \(waited.json)")
        let again = try await TestServer.send(.GET, courier + "&timeout=0")
        #expect(again.status == 401)
        #expect(again.json["serverErrorCode"] == .string("AUTHENTICATION_FAILED"))

        // Bob is still signed in: his stream stays open and delivers; alice's got nothing more.
        try await bob.create("after")
        #expect(await bobsStream.waitForEvents(2))
        #expect(!bobsStream.ended)
        for stream in alicesStreams {
            #expect(!stream.events.contains { $0.json.at("ck", "qry", "rid") == .string("after") })
        }
        // A new stream with the revoked token is refused.
        let reopened = try await alice.stream()
        #expect(reopened.status == 401)
    }

    @Test func signingOneClientOutEndsOnlyThatSignInsPush() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let laptop = try await Self.push(server, user: "alice")
        let phone = try await Self.push(server, user: "alice")
        let laptopStream = try await laptop.stream()
        let phoneStream = try await phone.stream()
        defer { laptopStream.close(); phoneStream.close() }
        #expect(await eventually { laptopStream.comments.contains("connected") && phoneStream.comments.contains("connected") })

        // What `foodpin logout` sends.
        let signout = "\(server.baseURL)/auth/1/\(server.container)/signout?ckWebAuthToken=\(laptop.webAuthToken)"
        let ended = try await TestServer.send(.POST, signout, body: Array("{}".utf8))
        #expect(ended.status == 200)
        #expect(ended.json["signedOut"] == .bool(true))
        #expect(await eventually(timeout: Self.bound) { laptopStream.ended })
        #expect(try await server.send(.GET, "users/current", apiToken: laptop.apiToken, webAuthToken: laptop.webAuthToken).status == 401)
        // Again, or with a token that never was: the same answer shape, nothing revoked.
        #expect(try await TestServer.send(.POST, signout, body: Array("{}".utf8)).json["signedOut"] == .bool(false))
        let missing = try await TestServer.send(.POST, "\(server.baseURL)/auth/1/\(server.container)/signout", body: Array("{}".utf8))
        #expect(missing.status == 400)

        try await phone.subscribe()
        try await phone.create("still-here")
        #expect(await phoneStream.waitForEvents(1), "the phone's sign-in is untouched")
        #expect(!phoneStream.ended)
    }

    /// On a server clock the test moves: the stream ends when that clock reaches the token's expiry,
    /// not before, and the wait the server chose runs to that instant (a timer, not a periodic check).
    @Test func anExpiringWebAuthTokenEndsItsPushAtItsExpiry() async throws {
        let time = ManualClock()
        let server = try await TestServer.startWithIdentity(clock: time.wallClock)
        defer { Task { await server.stop() } }
        let identity = try server.identity
        let apiToken = try await identity.createAPIToken(container: server.container, environment: .development, now: time.now)
        try await identity.addUser("alice", password: "pw-alice", container: server.container, hasher: PasswordHasher(cost: 4), now: time.now)
        // The subscription through a long sign-in, so the short one is spent only on push.
        try await Push(server: server, apiToken: apiToken,
                       webAuthToken: identity.issueWebAuthToken(user: "alice", container: server.container, lifetime: .seconds(3600), now: time.now))
            .subscribe()
        // A real token that expires 10 s from now on the server's clock, which only the test moves.
        let expires = time.now.addingTimeInterval(10)
        let token = try await identity.issueWebAuthToken(user: "alice", container: server.container, lifetime: .seconds(10), now: time.now)
        let alice = Push(server: server, apiToken: apiToken, webAuthToken: token)
        let stream = try await alice.stream()
        defer { stream.close() }
        #expect(stream.status == 200)
        let courier = try await alice.pushToken()
        #expect(try await TestServer.send(.GET, courier + "&timeout=0").status == 204)
        let sessions = server.cloudServer.pushSessions
        #expect(await eventually { sessions.count >= 1 && sessions.progress.lastWait.map { $0 <= .seconds(10) } == true },
                "the server waits for the expiry instant, 10 s away")

        // Half a second before the expiry: the server looks at the moved clock and keeps the stream open,
        // waiting the half second that is left.
        let before = sessions.progress.passes
        time.set(expires.addingTimeInterval(-0.5))
        #expect(await eventually { sessions.progress.passes > before })
        #expect(!stream.ended, "the stream stays open before the expiry")
        #expect(sessions.progress.lastWait.map { $0 > .zero && $0 <= .milliseconds(500) } == true,
                "the wait runs to the expiry instant: \(String(describing: sessions.progress.lastWait))")
        #expect(try await TestServer.send(.GET, courier + "&timeout=0").status == 204)

        time.set(expires)
        #expect(await eventually(timeout: Self.bound) { stream.ended }, "the stream closes at the token's expiry")
        #expect(stream.events.last?.name == "signedOut")
        #expect(try await TestServer.send(.GET, courier + "&timeout=0").status == 401)
    }

    /// `localcloud users signout` in another process writes the identity file; the server hears it
    /// through the file system (a second store object over the same files stands in for that process).
    @Test func aSignOutByAnotherProcessEndsPush() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let alice = try await Self.push(server, user: "alice")
        let stream = try await alice.stream()
        defer { stream.close() }
        #expect(await eventually { stream.comments.contains("connected") })
        #expect(await eventually { server.cloudServer.pushSessions.count >= 1 })

        let otherProcess = SQLiteIdentityStore(dataDirectory: server.dataDirectory)
        #expect(try await otherProcess.signOut(user: "alice", container: server.container) == 1)
        #expect(await eventually(timeout: Self.bound) { stream.ended }, "the stream closes within 2 s")
        #expect(stream.events.last?.name == "signedOut")
    }

    @Test func revokingTheAPITokenEndsItsPush() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let alice = try await Self.push(server, user: "alice")
        let stream = try await alice.stream()
        defer { stream.close() }
        #expect(await eventually { stream.comments.contains("connected") })
        let courier = try await alice.pushToken()

        _ = try await server.identity.revokeAPIToken(alice.apiToken, container: server.container)
        #expect(await eventually(timeout: Self.bound) { stream.ended })
        #expect(try await TestServer.send(.GET, courier + "&timeout=0").status == 401)
    }

    @Test func aPushTokenWithoutItsSignInIsRefused() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        // Signed with the right key, but made before tokens recorded their sign-in: nothing could end it.
        let token = try PushTokens.forDataDirectory(server.dataDirectory)
            .issue(PushTokens.Claims(container: server.container, environment: .development, user: "alice", apnsEnvironment: "development"))
        let polled = try await TestServer.send(.GET, "\(server.baseURL)/device/1/\(server.container)/development/webcourier?apnsToken=\(token)&timeout=0")
        #expect(polled.status == 401)
    }
}
