import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import LocalCloud
import Testing
@testable import LocalCloudServer

/// Accounts, sign-in, web auth tokens and what a user may reach, against a real server.
@Suite("authentication: users and web auth tokens")
struct UserAuthTests {
    static let createRestaurant = """
        {"operations": [{"operationType": "create", "record": {"recordName": "r1", "recordType": "Restaurant",
          "fields": {"name": {"value": "Cafe Deadend"}}}}]}
        """

    @Test func signinGivesAWebAuthTokenThatActsAsTheUser() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let identity = try server.identity
        let apiToken = try await identity.createAPIToken(container: server.container, environment: .development)
        try await identity.addUser("alice", password: "open sesame", container: server.container, hasher: PasswordHasher(cost: 4))

        let signin = try await server.signin("alice", password: "open sesame")
        #expect(signin.status == 200)
        let token = try #require(signin.json["ckWebAuthToken"]?.stringValue)
        #expect(token.utf8.count >= 100)
        #expect(token.unicodeScalars.allSatisfy { CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_").contains($0) })

        let created = try await server.send(.POST, "records/modify", apiToken: apiToken, webAuthToken: token, body: Self.createRestaurant)
        #expect(created.status == 200, "\(created.json)")
        #expect(created.json.at("records", "0", "created", "userRecordName") == JSONValue.string("_alice"))

        for (user, password) in [("alice", "open sesame!"), ("alice", ""), ("mallory", "open sesame")] {
            let wrong = try await server.signin(user, password: password)
            #expect(wrong.status == 401, "\(user)")
            #expect(wrong.json["serverErrorCode"] == JSONValue.string("AUTHENTICATION_FAILED"))
        }
        let malformed = try await TestServer.send(.POST, "\(server.baseURL)/auth/1/\(server.container)/signin", body: Array("{nope".utf8))
        #expect(malformed.status == 400)
        let forged = try await server.send(.POST, "records/query", apiToken: apiToken, webAuthToken: String(repeating: "A", count: 128),
                                           body: #"{"query": {"recordType": "Restaurant"}}"#)
        #expect(forged.status == 401)
    }

    @Test func repeatedWrongPasswordsAreThrottled() async throws {
        let clock = ManualClock()
        let server = try await TestServer.startWithIdentity(clock: clock.wallClock, throttle: SigninThrottle(freeFailures: 3, firstLockout: 30))
        defer { Task { await server.stop() } }
        try await server.identity.addUser("alice", password: "right", container: server.container, hasher: PasswordHasher(cost: 4))

        for _ in 0..<3 { #expect(try await server.signin("alice", password: "wrong").status == 401) }
        let throttled = try await server.signin("alice", password: "right")
        #expect(throttled.status == 429)
        #expect(throttled.json["serverErrorCode"] == JSONValue.string("THROTTLED"))
        #expect((throttled.json["retryAfter"]?.doubleValue ?? 0) > 0)
        #expect(try await server.signin("bob", password: "x").status == 401, "other accounts are not locked out")

        clock.advance(by: 31)
        #expect(try await server.signin("alice", password: "right").status == 200)
        // The success cleared the count: one more failure is not locked out.
        #expect(try await server.signin("alice", password: "wrong").status == 401)
        #expect(try await server.signin("alice", password: "right").status == 200)
    }

    @Test func webAuthTokensExpire() async throws {
        let clock = ManualClock()
        clock.set(Date())
        let server = try await TestServer.startWithIdentity(clock: clock.wallClock) { $0.tokenLifetime = .seconds(60) }
        defer { Task { await server.stop() } }
        let identity = try server.identity
        let apiToken = try await identity.createAPIToken(container: server.container, environment: .development)
        try await identity.addUser("alice", password: "pw", container: server.container, hasher: PasswordHasher(cost: 4))
        // Sign-in stamps the token with the server's clock and lifetime.
        let token = try #require(try await server.signin("alice", password: "pw").json["ckWebAuthToken"]?.stringValue)

        #expect(try await server.send(.GET, "users/current", apiToken: apiToken, webAuthToken: token).status == 200)
        clock.advance(by: 59)
        #expect(try await server.send(.GET, "users/current", apiToken: apiToken, webAuthToken: token).status == 200)
        clock.advance(by: 2)
        let expired = try await server.send(.GET, "users/current", apiToken: apiToken, webAuthToken: token)
        #expect(expired.status == 401)
        #expect(expired.json["serverErrorCode"] == JSONValue.string("AUTHENTICATION_FAILED"))
    }

    @Test func signingOutRevokesEveryTokenOfTheUser() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let (apiToken, first) = try await server.credentials(for: "alice")
        let (_, second) = try await server.credentials(for: "alice")
        let (_, bobs) = try await server.credentials(for: "bob")
        for token in [first, second, bobs] {
            #expect(try await server.send(.GET, "users/current", apiToken: apiToken, webAuthToken: token).status == 200)
        }
        #expect(try await server.identity.signOut(user: "alice", container: server.container) == 2)
        for token in [first, second] {
            #expect(try await server.send(.GET, "users/current", apiToken: apiToken, webAuthToken: token).status == 401)
        }
        #expect(try await server.send(.GET, "users/current", apiToken: apiToken, webAuthToken: bobs).status == 200)
    }

    @Test func privateDatabasesAreIsolated() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let (apiToken, alice) = try await server.credentials(for: "alice")
        let (_, bob) = try await server.credentials(for: "bob")
        let saved = try await server.send(.POST, "records/modify", database: "private", apiToken: apiToken, webAuthToken: alice,
                                          body: Self.createRestaurant)
        #expect(saved.status == 200, "\(saved.json)")

        let lookup = #"{"records": [{"recordName": "r1"}]}"#
        let own = try await server.send(.POST, "records/lookup", database: "private", apiToken: apiToken, webAuthToken: alice, body: lookup)
        #expect(own.json.at("records", "0", "fields", "name", "value") == JSONValue.string("Cafe Deadend"))
        let other = try await server.send(.POST, "records/lookup", database: "private", apiToken: apiToken, webAuthToken: bob, body: lookup)
        #expect(other.status == 200)
        #expect(other.json.at("records", "0", "serverErrorCode") == JSONValue.string("NOT_FOUND"))
        let query = #"{"query": {"recordType": "Restaurant"}}"#
        let bobsQuery = try await server.send(.POST, "records/query", database: "private", apiToken: apiToken, webAuthToken: bob, body: query)
        #expect(bobsQuery.json["records"]?.arrayValue?.isEmpty == true, "\(bobsQuery.json)")

        let anonymous = try await server.send(.POST, "records/lookup", database: "private", apiToken: apiToken, body: lookup)
        #expect(anonymous.status == 421)
        #expect(anonymous.json["serverErrorCode"] == JSONValue.string("AUTHENTICATION_REQUIRED"))
    }

    @Test func withoutAUserThePublicDatabaseIsReadOnly() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let (apiToken, alice) = try await server.credentials(for: "alice")
        #expect(try await server.send(.POST, "records/modify", apiToken: apiToken, webAuthToken: alice, body: Self.createRestaurant).status == 200)

        let read = try await server.send(.POST, "records/query", apiToken: apiToken, body: #"{"query": {"recordType": "Restaurant"}}"#)
        #expect(read.status == 200)
        #expect(read.json.at("records", "0", "recordName") == JSONValue.string("r1"))

        let write = try await server.send(.POST, "records/modify", apiToken: apiToken, body: Self.createRestaurant)
        #expect(write.status == 421)
        #expect(write.json["serverErrorCode"] == JSONValue.string("AUTHENTICATION_REQUIRED"))
        let redirect = try #require(write.json["redirectURL"]?.stringValue)
        #expect(redirect == "\(server.baseURL)/auth/1/\(server.container)/signin")

        // The redirect is a sign-in page.
        let page = try await TestServer.sendRaw(.GET, redirect)
        #expect(page.status == 200)
        let html = String(decoding: page.bytes, as: UTF8.self)
        #expect(html.contains(#"<form method="post" action="/auth/1/\#(server.container)/signin">"#))
        #expect(html.contains(#"type="password""#))
    }

    @Test func theSigninPageFormSignsInAndEscapesWhatItShows() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        try await server.identity.addUser("alice", password: "a&b <c>", container: server.container, hasher: PasswordHasher(cost: 4))
        let url = "\(server.baseURL)/auth/1/\(server.container)/signin"
        let form = [("Content-Type", "application/x-www-form-urlencoded")]

        let good = try await Self.post(url, "user=alice&password=a%26b+%3Cc%3E", headers: form)
        #expect(good.status == 200)
        let html = String(decoding: good.bytes, as: UTF8.self)
        #expect(html.contains("Signed in as <strong>alice</strong>"))
        let token = try #require(html.components(separatedBy: #"cols="70">"#).last?.components(separatedBy: "</textarea>").first)
        #expect(token.count >= 100)
        #expect(try await server.identity.signedInUser(webAuthToken: token, container: server.container) == "alice")

        // `curl -d '{"user", "password"}'` sends JSON labelled as a form: it is answered as JSON.
        let curl = try await Self.post(url, #" {"user": "alice", "password": "a&b <c>"}"#, headers: form)
        #expect(curl.status == 200)
        #expect((try JSONValue.parse(curl.bytes))["ckWebAuthToken"]?.stringValue?.count == 128)

        let bad = try await Self.post(url, "user=%3Cscript%3E&password=x", headers: form)
        #expect(bad.status == 401)
        let badHTML = String(decoding: bad.bytes, as: UTF8.self)
        #expect(badHTML.contains("Wrong user name or password"))
        #expect(!badHTML.contains("<script>"))

        #expect(SigninPage.escape(#"<a href="x">'&'</a>"#) == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        let unknown = try await TestServer.sendRaw(.GET, "\(server.baseURL)/auth/1/..%2F..%2Fetc/signin")
        #expect(unknown.status == 400 || unknown.status == 404)
    }

    @Test func currentUserAndDiscoverFollowTheReference() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let identity = try server.identity
        let (apiToken, alice) = try await server.credentials(for: "alice")
        _ = try await server.credentials(for: "bob")
        try await identity.addUser("carol", password: "pw", container: server.container, discoverable: false, hasher: PasswordHasher(cost: 4))

        let current = try await server.send(.GET, "users/current", apiToken: apiToken, webAuthToken: alice)
        #expect(current.status == 200)
        #expect(current.json == .object(["userRecordName": .string("_alice"), "firstName": .string("alice")]))

        let anonymous = try await server.send(.GET, "users/current", apiToken: apiToken)
        #expect(anonymous.status == 421)
        #expect(anonymous.json["redirectURL"]?.stringValue?.hasSuffix("/auth/1/\(server.container)/signin") == true)

        let caller = try await server.send(.GET, "users/caller", apiToken: apiToken, webAuthToken: alice)
        #expect(caller.json["userRecordName"] == JSONValue.string("_alice"))

        let all = try await server.send(.GET, "users/discover", apiToken: apiToken, webAuthToken: alice)
        #expect(all.status == 200)
        let users = try #require(all.json["users"]?.arrayValue)
        #expect(users.compactMap { $0["userRecordName"]?.stringValue } == ["_alice", "_bob"], "carol is not discoverable")
        #expect(users.last == .object([
            "userRecordName": .string("_bob"),
            "nameComponents": .object(["givenName": .string("bob")]),
            "lookupInfo": .object(["userRecordName": .string("_bob")]),
        ]))

        let some = try await server.send(.POST, "users/discover", apiToken: apiToken, webAuthToken: alice, body: """
            {"lookupInfos": [{"userRecordName": "_bob"}, {"userRecordName": "_carol"}, {"emailAddress": "x@example.com"}]}
            """)
        #expect(some.status == 200)
        #expect(some.json["users"]?.arrayValue?.compactMap { $0["userRecordName"]?.stringValue } == ["_bob"])
        #expect(try await server.send(.POST, "users/discover", apiToken: apiToken, webAuthToken: alice, body: "{}").status == 400)
        #expect(try await server.send(.GET, "users/discover", apiToken: apiToken).status == 421)
    }

    @Test func usersAreLookedUpByEmailAddress() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let identity = try server.identity
        let (apiToken, alice) = try await server.credentials(for: "alice")
        let hasher = PasswordHasher(cost: 4)
        let bob = try await identity.addUser("bob", password: "pw", container: server.container, email: " Bob@Example.COM ", hasher: hasher)
        #expect(bob.email == "bob@example.com", "kept trimmed and lowercased")
        #expect(try await identity.user(named: "bob", container: server.container)?.email == "bob@example.com")
        try await identity.addUser("carol", password: "pw", container: server.container, discoverable: false,
                                   email: "carol@example.com", hasher: hasher)
        for bad in ["", "bob", "a@b@c", "a b@example.com", "@example.com", "bob@"] {
            await #expect(throws: CloudError.self, "\(bad)") {
                try await identity.addUser("dave", password: "pw", container: server.container, email: bad, hasher: hasher)
            }
        }
        do {
            try await identity.addUser("dave", password: "pw", container: server.container, email: "BOB@example.com", hasher: hasher)
            Issue.record("two accounts got one email address")
        } catch let error as CloudError {
            #expect(error.code == .constraintViolation)
        }

        let found = try await server.send(.POST, "users/lookup/email", apiToken: apiToken, webAuthToken: alice, body: """
            {"users": [{"emailAddress": "BOB@example.com"}, {"emailAddress": "carol@example.com"}, {"emailAddress": "nobody@example.com"}]}
            """)
        #expect(found.status == 200)
        #expect(found.json == .object(["users": .array([.object([
            "userRecordName": .string("_bob"), "firstName": .string("bob"), "emailAddress": .string("bob@example.com"),
        ])])]), "carol is not discoverable; an unknown address is left out")
        let discovered = try await server.send(.POST, "users/discover", apiToken: apiToken, webAuthToken: alice, body: """
            {"lookupInfos": [{"emailAddress": "bob@example.com"}]}
            """)
        #expect(discovered.json["users"]?.arrayValue?.first?["lookupInfo"]?["emailAddress"] == .string("bob@example.com"))
        #expect(try await server.send(.POST, "users/lookup/email", apiToken: apiToken, webAuthToken: alice,
                                      body: #"{"users": [{"userRecordName": "_bob"}]}"#).status == 400)
        #expect(try await server.send(.POST, "users/lookup/email", apiToken: apiToken,
                                      body: #"{"users": [{"emailAddress": "bob@example.com"}]}"#).status == 421)
    }

    @Test func accountNamesAndPasswordsAreChecked() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let identity = try server.identity
        for name in ["", "_developer", "-x", "a b", "a/b", String(repeating: "a", count: 65)] {
            await #expect(throws: CloudError.self, "\(name)") {
                try await identity.addUser(name, password: "pw", container: server.container, hasher: PasswordHasher(cost: 4))
            }
        }
        await #expect(throws: CloudError.self) {
            try await identity.addUser("alice", password: String(repeating: "x", count: 73), container: server.container)
        }
        try await identity.addUser("alice", password: "pw", container: server.container, hasher: PasswordHasher(cost: 4))
        do {
            try await identity.addUser("alice", password: "pw2", container: server.container, hasher: PasswordHasher(cost: 4))
            Issue.record("a second alice was added")
        } catch let error as CloudError {
            #expect(error.code == .constraintViolation)
        }
    }

    @Test func theThrottleTableStaysBounded() {
        let throttle = SigninThrottle(freeFailures: 2, firstLockout: 10, maximumLockout: 40)
        let start = Date(timeIntervalSince1970: 0)
        #expect(throttle.recordFailure(container: "c", user: "u", now: start) == nil)
        #expect(throttle.recordFailure(container: "c", user: "u", now: start) == 10)
        #expect(throttle.recordFailure(container: "c", user: "u", now: start) == 20)
        #expect(throttle.recordFailure(container: "c", user: "u", now: start) == 40)
        #expect(throttle.recordFailure(container: "c", user: "u", now: start) == 40, "capped")
        #expect(throttle.retryAfter(container: "c", user: "u", now: start.addingTimeInterval(39)) == 1)
        #expect(throttle.retryAfter(container: "c", user: "u", now: start.addingTimeInterval(40)) == nil)
        for index in 0..<12_000 { throttle.recordFailure(container: "c", user: "guess\(index)", now: start) }
        throttle.checkInvariants()
    }

    static func post(_ url: String, _ body: String, headers: [(String, String)]) async throws -> (status: Int, bytes: [UInt8]) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        return (Int(response.status.code), Array(try await response.body.collect(upTo: 1 << 20).readableBytesView))
    }
}
