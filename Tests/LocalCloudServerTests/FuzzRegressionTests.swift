import Foundation
@_spi(Fuzzing) import LocalCloud
@_spi(Fuzzing) import LocalCloudServer
import Testing

/// The server-side fuzz corpora (Fuzz/Corpus: request bodies, continuation markers, sync tokens)
/// replayed through the harnesses' entry points in the ordinary test run.
@Suite struct ServerFuzzRegressionTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus")

    static func inputs(_ harness: String) throws -> [[UInt8]] {
        let directory = corpus.appendingPathComponent(harness)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        return try names.map { Array(try Data(contentsOf: directory.appendingPathComponent($0))) }
    }

    @Test func requestBodiesDecodeOrAreRefusedForEveryOperation() throws {
        let bodies = try Self.inputs("FuzzRequestBody")
        #expect(bodies.count > 10)
        var accepted = 0
        for body in bodies {
            for operation in RequestBodyDecoding.operations where (try? RequestBodyDecoding.decode(body, operation: operation)) != nil {
                accepted += 1
            }
        }
        #expect(accepted > 0, "the seeds include valid bodies")
        #expect(throws: (any Error).self) { try RequestBodyDecoding.decode(Array("[1,".utf8), operation: "records/query") }
    }

    @Test func continuationMarkersFromTheServerDecode() throws {
        let markers = try Self.inputs("FuzzContinuationMarker")
        #expect(!markers.isEmpty)
        for marker in markers {
            let cursor = try #require(RequestBodyDecoding.continuationMarker(String(decoding: marker, as: UTF8.self)))
            FuzzTargets.queryCursor(cursor)
        }
        #expect(RequestBodyDecoding.continuationMarker("not a marker") == nil)
    }

    @Test func syncTokensReplay() throws {
        for input in try Self.inputs("FuzzChangeToken") {
            FuzzTargets.changeToken(input)
            if let token = try? RequestBodyDecoding.syncToken(String(decoding: input, as: UTF8.self)) {
                FuzzTargets.changeToken(Array(token.data))
            }
        }
    }
}
