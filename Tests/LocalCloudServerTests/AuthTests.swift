import AsyncHTTPClient
import Foundation
import Logging
import NIOHTTP1
import LocalCloud
import Synchronization
import Testing
@testable import LocalCloudServer

/// API tokens, secrets at rest and the request log, against a real server with the real authenticator.
@Suite("authentication: API tokens")
struct AuthTests {
    @Test func apiTokensCreateListAndRevoke() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let identity = try server.identity
        let token = try await identity.createAPIToken(container: server.container, environment: .development, name: "web")
        #expect(token.utf8.count == 64 && token.allSatisfy { $0.isHexDigit && !$0.isUppercase })

        let query = #"{"query": {"recordType": "Restaurant"}}"#
        #expect(try await server.send(.POST, "records/query", apiToken: token, body: query).status == 200)

        let listed = try await identity.apiTokens(container: server.container)
        #expect(listed.count == 1)
        #expect(listed.first?.name == "web")
        #expect(listed.first?.id == String(Secret.digest(token).prefix(12)))
        #expect(listed.first?.revoked == nil)

        let revoked = try await identity.revokeAPIToken(listed[0].id, container: server.container)
        #expect(revoked.revoked != nil)
        let refused = try await server.send(.POST, "records/query", apiToken: token, body: query)
        #expect(refused.status == 401)
        #expect(refused.json["serverErrorCode"] == JSONValue.string("AUTHENTICATION_FAILED"))
        await #expect(throws: CloudError.self) { try await identity.revokeAPIToken(token, container: server.container) }
    }

    @Test func aTokenWorksOnlyForItsEnvironmentAndContainer() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let identity = try server.identity
        let production = try await identity.createAPIToken(container: server.container, environment: .production)
        let other = try await identity.createAPIToken(container: "iCloud.com.example.Other", environment: .development)
        #expect(try await server.send(.GET, "zones/list", apiToken: production).status == 401)
        #expect(try await server.send(.GET, "zones/list", environment: "production", apiToken: production).status == 200)
        #expect(try await server.send(.GET, "zones/list", apiToken: other).status == 401)
    }

    @Test func missingOrMalformedTokensAreRefused() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let query = #"{"query": {"recordType": "Restaurant"}}"#
        let missing = try await server.send(.POST, "records/query", apiToken: nil, body: query)
        #expect(missing.status == 401)
        #expect(missing.json["serverErrorCode"] == JSONValue.string("AUTHENTICATION_FAILED"))
        #expect(try await server.send(.POST, "records/query", apiToken: "not-a-token", body: query).status == 401)
        #expect(try await server.send(.POST, "records/query", apiToken: String(repeating: "a", count: 64), body: query).status == 401)
        // A request naming an unknown container leaves no identity file behind.
        let stray = "\(server.baseURL)/database/1/iCloud.nobody/development/public/records/query?ckAPIToken=\(String(repeating: "b", count: 64))"
        #expect(try await TestServer.send(.POST, stray, body: Array(query.utf8)).status == 401)
        #expect(!FileManager.default.fileExists(atPath: server.dataDirectory.appendingPathComponent("iCloud.nobody").path))
    }

    /// The lookup cache never outlives a commit: a revocation through another store (as the console
    /// makes it, with its own connections) is refused on the very next lookup.
    @Test func aRevocationFromAnotherStoreIsSeenAtOnce() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lcs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = SQLiteIdentityStore(dataDirectory: directory)
        let console = SQLiteIdentityStore(dataDirectory: directory)
        let container = "iCloud.com.example.Test"
        try await console.addUser("alice", password: "pw", container: container, hasher: PasswordHasher(cost: 4))
        for _ in 0..<40 {
            let token = try await console.createAPIToken(container: container, environment: .development)
            let web = try await console.issueWebAuthToken(user: "alice", container: container, lifetime: .seconds(60))
            for _ in 0..<2 {
                #expect(try await server.isLiveAPIToken(token, container: container, environment: .development))
                #expect(try await server.signedInUser(webAuthToken: web, container: container) == "alice")
            }
            _ = try await console.revokeAPIToken(token, container: container)
            #expect(try await !server.isLiveAPIToken(token, container: container, environment: .development))
            _ = try await console.signOut(user: "alice", container: container)
            #expect(try await server.signedInUser(webAuthToken: web, container: container) == nil)
        }
        #expect(server.apiTokenCache.count <= server.apiTokenCache.capacity)
    }

    @Test func secretsAreStoredOnlyAsDigests() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let identity = try server.identity
        let apiToken = try await identity.createAPIToken(container: server.container, environment: .development)
        try await identity.addUser("alice", password: "correct horse", container: server.container, hasher: PasswordHasher(cost: 4))
        let webToken = try await identity.issueWebAuthToken(user: "alice", container: server.container, lifetime: .seconds(60))
        let directory = server.dataDirectory.appendingPathComponent(server.container)
        var stored = Data()
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasPrefix("identity.sqlite") {
            stored.append(try Data(contentsOf: directory.appendingPathComponent(name)))
        }
        #expect(!stored.isEmpty)
        let text = String(decoding: stored, as: UTF8.self)
        #expect(!text.contains(apiToken))
        #expect(!text.contains(webToken))
        #expect(!text.contains("correct horse"))
        #expect(text.contains(Secret.digest(apiToken)))
        #expect(text.contains("$04$"), "a bcrypt hash of cost 4")
    }

    @Test func tokensAndPasswordsNeverReachTheLog() async throws {
        let lines = LogLines()
        var logger = Logger(label: "capture") { _ in CapturingLogHandler(lines: lines) }
        logger.logLevel = .trace
        let server = try await TestServer.startWithIdentity(logger: logger)
        defer { Task { await server.stop() } }
        let identity = try server.identity
        let apiToken = try await identity.createAPIToken(container: server.container, environment: .development)
        try await identity.addUser("alice", password: "hunter2-secret", container: server.container, hasher: PasswordHasher(cost: 4))
        let signin = try await server.signin("alice", password: "hunter2-secret")
        let webToken = try #require(signin.json["ckWebAuthToken"]?.stringValue)
        _ = try await server.send(.POST, "records/query", apiToken: apiToken, webAuthToken: webToken,
                                  body: #"{"query": {"recordType": "Restaurant"}}"#)
        _ = try await server.send(.POST, "records/query", apiToken: apiToken, webAuthToken: webToken + "x", body: "{}")
        _ = try await server.signin("alice", password: "wrong-secret")

        let logged = lines.all.joined(separator: "\n")
        #expect(logged.contains("POST /database/1/\(server.container)/development/public/records/query 200"), "\(logged)")
        #expect(logged.contains("POST /auth/1/\(server.container)/signin 401"))
        for secret in [apiToken, webToken, "hunter2-secret", "wrong-secret", "ckAPIToken", "ckWebAuthToken"] {
            #expect(!logged.contains(secret), "the log shows \(secret.prefix(16))…")
        }
    }
}

// MARK: - Support shared by the identity tests

extension TestServer {
    /// `/database/1/<container>/<environment>/<database>/<endpoint>` with these credentials.
    func url(_ endpoint: String, database: String = "public", environment: String = "development",
             apiToken: String?, webAuthToken: String?) -> String {
        var query: [String] = []
        if let apiToken { query.append("ckAPIToken=\(apiToken)") }
        if let webAuthToken { query.append("ckWebAuthToken=\(webAuthToken)") }
        let path = "\(baseURL)/database/1/\(container)/\(environment)/\(database)/\(endpoint)"
        return query.isEmpty ? path : path + "?" + query.joined(separator: "&")
    }

    func send(_ method: HTTPMethod, _ endpoint: String, database: String = "public", environment: String = "development",
              apiToken: String?, webAuthToken: String? = nil, body: String? = nil) async throws -> (status: Int, json: JSONValue) {
        try await Self.send(method, url(endpoint, database: database, environment: environment, apiToken: apiToken, webAuthToken: webAuthToken),
                            body: body.map { Array($0.utf8) })
    }

    /// `POST /auth/1/<container>/signin` with JSON.
    func signin(_ user: String, password: String) async throws -> (status: Int, json: JSONValue) {
        let body = JSONValue.object(["user": .string(user), "password": .string(password)])
        return try await Self.send(.POST, "\(baseURL)/auth/1/\(container)/signin", body: body.bytes)
    }

    /// A development API token and a signed-in account (bcrypt cost 4: tests, not production).
    func credentials(for user: String) async throws -> (apiToken: String, webAuthToken: String) {
        let identity = try identity
        let apiToken = try await identity.createAPIToken(container: container, environment: .development)
        if try await identity.user(named: user, container: container) == nil {
            try await identity.addUser(user, password: "pw-\(user)", container: container, hasher: PasswordHasher(cost: 4))
        }
        let token = try await identity.issueWebAuthToken(user: user, container: container, lifetime: .seconds(3600))
        return (apiToken, token)
    }
}

/// Every log message with its metadata, as text.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func append(_ line: String) { lines.withLock { $0.append(line) } }
}

struct CapturingLogHandler: LogHandler {
    let lines: LogLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        lines.append("\(event.level) \(event.message) \(merged) \(event.source) \(event.file)")
    }
}
