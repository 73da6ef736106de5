import Foundation
import Testing
@_spi(Fuzzing) @testable import LocalCloud

/// The inputs the libFuzzer harnesses (Fuzz/, `scripts/fuzz.sh`) found, and their seed corpora,
/// replayed through the same entry points in the ordinary test run, without sanitizers.
@Suite struct FuzzRegressionTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus")

    static func inputs(_ harness: String) throws -> [[UInt8]] {
        let directory = corpus.appendingPathComponent(harness)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        return try names.map { Array(try Data(contentsOf: directory.appendingPathComponent($0))) }
    }

    @Test func corporaReplayWithoutACrash() throws {
        let runs: [(String, ([UInt8]) -> Void)] = [
            ("FuzzPredicate", FuzzTargets.predicate), ("FuzzSchemaText", FuzzTargets.schemaText),
            ("FuzzJSON", FuzzTargets.json), ("FuzzStoredFields", FuzzTargets.storedFields),
            ("FuzzChangeToken", FuzzTargets.changeToken), ("FuzzServerSentEvents", FuzzTargets.serverSentEvents),
        ]
        for (harness, run) in runs {
            let inputs = try Self.inputs(harness)
            #expect(!inputs.isEmpty, "\(harness) has a seed corpus")
            for input in inputs { run(input) }
        }
    }

    /// FuzzJSON, first minutes: `1444444422222222422.020` parses as a Double, is written back as
    /// `1.4444444222222224e+18`, which parses as an Int64. Same number; the harness compares numerically.
    @Test func anIntegralDoubleBeyondIntegerTextRoundTripsAsTheSameNumber() throws {
        let value = try JSONValue.parse(Array("[1444444422222222422.020, 1e300, -0.5, 123456789012345678]".utf8))
        let again = try JSONValue.parse(value.bytes)
        let numbers = try #require(again.arrayValue).map { $0.doubleValue }
        #expect(numbers == [1.4444444222222224e18, 1e300, -0.5, 123_456_789_012_345_680])
        FuzzTargets.json(Array("1444444422222222422.020".utf8))
    }
}
