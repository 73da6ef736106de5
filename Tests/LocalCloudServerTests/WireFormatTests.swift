import Foundation
import LocalCloud
import NIOHTTP1
import Testing
@testable import LocalCloudServer

@Suite("wire formats")
struct WireFormatTests {
    @Test func everyCloudErrorCodeMapsToAWireCodeAndBack() {
        let wire: [ServerErrorCode] = [.accessDenied, .atomicError, .authenticationFailed, .authenticationRequired, .badRequest,
                                       .conflict, .exists, .internalError, .notFound, .quotaExceeded, .throttled,
                                       .tryAgainLater, .validatingReferenceError, .zoneNotFound,
                                       // Sharing's refusals, which the reference's list lacks.
                                       .alreadyShared, .participantMayNeedVerification, .tooManyParticipants]
        for raw in 1...36 {
            let code = CloudError.Code(rawValue: raw)
            #expect(wire.contains(ServerErrorCode(code)), "\(code) maps to no wire code")
        }
        for code in wire {
            // Back and forth again lands on the same wire code (AUTHENTICATION_FAILED reads as
            // notAuthenticated, which a server writes as AUTHENTICATION_REQUIRED).
            let back = ServerErrorCode(code.cloudErrorCode)
            #expect(back == code || (code == .authenticationFailed && back == .authenticationRequired), "\(code) → \(code.cloudErrorCode) → \(back)")
            #expect(code.httpStatus >= 400)
        }
        #expect(ServerErrorCode.authenticationRequired.httpStatus == 421)
        #expect(ServerErrorCode.quotaExceeded.httpStatus == 413)
        #expect(ServerErrorCode.throttled.httpStatus == 429)
        #expect(ServerErrorCode.tryAgainLater.httpStatus == 503)
    }

    @Test func everyValueTypeRoundTrips() async throws {
        let server = try await TestServer.start()
        defer { Task { await server.stop() } }
        let fields = #"""
            "s": {"value": "Café ☕ \"quoted\"", "type": "STRING"},
            "i": {"value": 9007199254740993, "type": "INT64"},
            "d": {"value": 2.5, "type": "DOUBLE"},
            "t": {"value": 1700000000123, "type": "TIMESTAMP"},
            "b": {"value": "AAEC/w==", "type": "BYTES"},
            "r": {"value": {"recordName": "other", "action": "DELETE_SELF"}, "type": "REFERENCE"},
            "l": {"value": {"latitude": 22.28, "longitude": 114.15}, "type": "LOCATION"},
            "sl": {"value": ["a", "b"], "type": "STRING_LIST"},
            "il": {"value": [1, 2, 3], "type": "INT64_LIST"},
            "tl": {"value": [1700000000000], "type": "TIMESTAMP_LIST"}
            """#
        let saved = try await server.call(endpoint: "records/modify", user: "alice", body: """
            {"operations": [{"operationType": "create", "record": {"recordName": "other", "recordType": "Thing", "fields": {}}},
                            {"operationType": "create", "record": {"recordName": "all", "recordType": "Thing", "fields": {\(fields)}}}]}
            """)
        #expect(saved.status == 200, "\(saved.json)")
        let lookup = try await server.call(endpoint: "records/lookup", body: #"{"records": [{"recordName": "all"}]}"#)
        let got = try #require(lookup.json.at("records", "0", "fields"))
        let sent = try JSONValue.parse(Array("{\(fields)}".utf8))
        for key in ["s", "i", "d", "t", "b", "sl", "il", "tl"] {
            #expect(got[key] == sent[key], "field \(key): \(String(describing: got[key]))")
        }
        #expect(got.at("r", "value", "recordName") == JSONValue.string("other"))
        #expect(got.at("r", "value", "action") == JSONValue.string("DELETE_SELF"))
        #expect(got.at("r", "type") == JSONValue.string("REFERENCE"))
        #expect(got.at("l", "value", "latitude") == JSONValue.number(22.28))
        #expect(got.at("l", "type") == JSONValue.string("LOCATION"))
    }

    @Test func assetsRoundTripByteForByteAndLargeOnesAreRefused() async throws {
        let server = try await TestServer.start { $0.maxAssetBytes = 1_000_000 }
        defer { Task { await server.stop() } }
        let bytes = (0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 7) }
        let tokens = try await server.call(endpoint: "assets/upload", user: "alice",
                                           body: #"{"tokens": [{"recordType": "Restaurant", "fieldName": "image"}, {"recordType": "Restaurant", "fieldName": "image"}]}"#)
        let url = try #require(tokens.json.at("tokens", "0", "url")?.stringValue)
        let uploaded = try await TestServer.send(.POST, url, body: bytes)
        #expect(uploaded.status == 200)
        let receipt = try #require(uploaded.json.at("singleFile", "receipt")?.stringValue)
        #expect(uploaded.json.at("singleFile", "size") == JSONValue.int(700_000))
        // A used upload URL is spent.
        #expect(try await TestServer.send(.POST, url, body: [1, 2, 3]).status == 401)
        let saved = try await server.call(endpoint: "records/modify", user: "alice", body: """
            {"operations": [{"operationType": "create", "record": {"recordName": "photo", "recordType": "Restaurant",
              "fields": {"image": {"value": {"receipt": "\(receipt)", "size": 700000}, "type": "ASSETID"}}}}]}
            """)
        let download = try #require(saved.json.at("records", "0", "fields", "image", "value", "downloadURL")?.stringValue)
        let fetched = try await TestServer.sendRaw(.GET, download)
        #expect(fetched.status == 200)
        #expect(fetched.bytes == bytes)
        // A receipt the server never issued is refused.
        let forged = try await server.call(endpoint: "records/modify", user: "alice", body: """
            {"operations": [{"operationType": "create", "record": {"recordName": "forged", "recordType": "Restaurant",
              "fields": {"image": {"value": {"receipt": "\(String(repeating: "ab", count: 32))"}, "type": "ASSETID"}}}}]}
            """)
        #expect(forged.status == 400)
        // Over the asset limit: QUOTA_EXCEEDED, and nothing stored.
        let second = try #require(tokens.json.at("tokens", "1", "url")?.stringValue)
        let tooBig = try await TestServer.send(.POST, second, body: [UInt8](repeating: 7, count: 1_200_000))
        #expect(tooBig.status == 413)
        #expect(tooBig.json["serverErrorCode"] == JSONValue.string("QUOTA_EXCEEDED"))
    }
}
