import Crypto
import Foundation
import NIOHTTP1
import LocalCloud
import Testing
@testable import LocalCloudServer

/// Server-to-server keys: requests signed as the reference describes act as the developer on the public database.
@Suite("authentication: server-to-server signatures")
struct SignatureTests {
    /// A request as a CloudKit server-to-server client signs it.
    struct Signer {
        let key = P256.Signing.PrivateKey()
        var keyID = ""

        func headers(path: String, body: [UInt8], date: Date = Date(), signedBody: [UInt8]? = nil,
                     signedPath: String? = nil) throws -> [(String, String)] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime]
            let stamp = formatter.string(from: date)
            let message = RequestSignature.message(date: stamp, body: signedBody ?? body, subpath: signedPath ?? path)
            let signature = try key.signature(for: Array(message.utf8)).derRepresentation.base64EncodedString()
            return [("X-Apple-CloudKit-Request-KeyID", keyID), ("X-Apple-CloudKit-Request-ISO8601Date", stamp),
                    ("X-Apple-CloudKit-Request-SignatureV1", signature)]
        }
    }

    func registered(_ server: TestServer) async throws -> Signer {
        var signer = Signer()
        let key = try await server.identity.addServerKey(publicKeyPEM: signer.key.publicKey.pemRepresentation,
                                                         container: server.container, environment: .development, name: "ci")
        signer.keyID = key.id
        return signer
    }

    func path(_ server: TestServer, _ endpoint: String, database: String = "public") -> String {
        "/database/1/\(server.container)/development/\(database)/\(endpoint)"
    }

    func send(_ server: TestServer, _ signer: Signer, _ endpoint: String, body: String, database: String = "public",
              date: Date = Date(), signedBody: String? = nil, signedPath: String? = nil) async throws -> (status: Int, json: JSONValue) {
        let path = path(server, endpoint, database: database)
        let bytes = Array(body.utf8)
        let headers = try signer.headers(path: path, body: bytes, date: date, signedBody: signedBody.map { Array($0.utf8) },
                                         signedPath: signedPath)
        return try await TestServer.send(.POST, server.baseURL + path, body: bytes, headers: headers)
    }

    @Test func theKeyIDIsTheDigestOfThePublicKey() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let signer = try await registered(server)
        #expect(signer.keyID.utf8.count == 64)
        #expect(signer.keyID == Hex.encode(SHA256.hash(data: signer.key.publicKey.derRepresentation)))
        await #expect(throws: CloudError.self) {
            _ = try await server.identity.addServerKey(publicKeyPEM: "-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----",
                                                       container: server.container, environment: .development)
        }
        await #expect(throws: CloudError.self, "registered twice") {
            _ = try await server.identity.addServerKey(publicKeyPEM: signer.key.publicKey.pemRepresentation,
                                                       container: server.container, environment: .development)
        }
    }

    @Test func aSignedRequestActsAsTheDeveloperOnThePublicDatabase() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let signer = try await registered(server)
        let (apiToken, alice) = try await server.credentials(for: "alice")
        let (_, bob) = try await server.credentials(for: "bob")
        let create = """
            {"operations": [{"operationType": "create", "record": {"recordName": "r1", "recordType": "Restaurant",
              "fields": {"name": {"value": "Cafe Deadend"}}}}]}
            """
        let created = try await server.send(.POST, "records/modify", apiToken: apiToken, webAuthToken: alice, body: create)
        let tag = try #require(created.json.at("records", "0", "recordChangeTag")?.stringValue)
        let update = """
            {"operations": [{"operationType": "update", "record": {"recordName": "r1", "recordType": "Restaurant",
              "recordChangeTag": "\(tag)", "fields": {"name": {"value": "Cafe Loop"}}}}]}
            """
        let bobs = try await server.send(.POST, "records/modify", apiToken: apiToken, webAuthToken: bob, body: update)
        #expect(bobs.json.at("records", "0", "serverErrorCode") == JSONValue.string("ACCESS_DENIED"), "roles stop bob")

        let query = try await send(server, signer, "records/query", body: #"{"query": {"recordType": "Restaurant"}}"#)
        #expect(query.status == 200, "\(query.json)")
        #expect(query.json.at("records", "0", "recordName") == JSONValue.string("r1"))

        let developer = try await send(server, signer, "records/modify", body: update)
        #expect(developer.status == 200)
        #expect(developer.json.at("records", "0", "fields", "name", "value") == JSONValue.string("Cafe Loop"), "\(developer.json)")
        #expect(developer.json.at("records", "0", "modified", "userRecordName") == JSONValue.string("__developer"))

        let current = try await TestServer.send(.GET, server.baseURL + path(server, "users/current"),
                                                headers: try signer.headers(path: path(server, "users/current"), body: []))
        #expect(current.status == 200)
        #expect(current.json["userRecordName"] == JSONValue.string("__developer"))
    }

    @Test func tamperedOrStaleSignaturesAreRefused() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let signer = try await registered(server)
        let body = #"{"query": {"recordType": "Restaurant"}}"#
        #expect(try await send(server, signer, "records/query", body: body).status == 200)

        let cases: [(String, (status: Int, json: JSONValue))] = [
            ("another body", try await send(server, signer, "records/query", body: body, signedBody: #"{"query": {"recordType": "X"}}"#)),
            ("another path", try await send(server, signer, "records/query", body: body, signedPath: path(server, "records/lookup"))),
            ("11 minutes old", try await send(server, signer, "records/query", body: body, date: Date().addingTimeInterval(-660))),
            ("11 minutes ahead", try await send(server, signer, "records/query", body: body, date: Date().addingTimeInterval(660))),
        ]
        for (what, response) in cases {
            #expect(response.status == 401, "\(what)")
            #expect(response.json["serverErrorCode"] == JSONValue.string("AUTHENTICATION_FAILED"), "\(what)")
        }
        #expect(try await send(server, signer, "records/query", body: body, date: Date().addingTimeInterval(-540)).status == 200,
                "9 minutes is within the allowed skew")

        var stranger = Signer()
        stranger.keyID = signer.keyID
        #expect(try await send(server, stranger, "records/query", body: body).status == 401, "another key's signature")
        var unknown = signer
        unknown.keyID = String(repeating: "0", count: 64)
        #expect(try await send(server, unknown, "records/query", body: body).status == 401)

        let headers = try signer.headers(path: path(server, "records/query"), body: Array(body.utf8))
        let partial = try await TestServer.send(.POST, server.baseURL + path(server, "records/query"), body: Array(body.utf8),
                                                headers: Array(headers.prefix(2)))
        #expect(partial.status == 401, "a missing signature header")
        let garbage = try await TestServer.send(.POST, server.baseURL + path(server, "records/query"), body: Array(body.utf8),
                                                headers: headers.dropLast() + [("X-Apple-CloudKit-Request-SignatureV1", "!!")])
        #expect(garbage.status == 401)

        #expect(try await server.identity.revokeServerKey(id: signer.keyID, container: server.container, at: Date()))
        #expect(try await send(server, signer, "records/query", body: body).status == 401, "a revoked key")
    }

    @Test func signedRequestsCannotReachPrivateOrSharedDatabases() async throws {
        let server = try await TestServer.startWithIdentity()
        defer { Task { await server.stop() } }
        let signer = try await registered(server)
        for database in ["private", "shared"] {
            let response = try await send(server, signer, "records/query", body: #"{"query": {"recordType": "Restaurant"}}"#,
                                          database: database)
            #expect(response.status == 403, "\(database)")
            #expect(response.json["serverErrorCode"] == JSONValue.string("ACCESS_DENIED"))
            #expect(response.json["reason"]?.stringValue?.contains("public database only") == true)
        }
    }
}
