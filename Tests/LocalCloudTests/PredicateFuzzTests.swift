import Foundation
import Testing
@testable import LocalCloud

private typealias Predicate = LocalCloud.Predicate

/// A small deterministic generator (SplitMix64), so every run fuzzes the same inputs.
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random token soups and garbage never crash the parser: each parses (and then round-trips) or
/// fails with `invalidArguments` and a printable message.
struct PredicateFuzzTests {
    private static let vocabulary = [
        "a", "rating", "tags", "location", "creationDate", "recordID", "recordName", "creatorUserRecordID", "self", "SELF", "#in",
        "==", "=", "!=", "<>", "<", "<=", ">", ">=", "=<", "=>", "!", "&&", "||",
        "AND", "OR", "NOT", "IN", "BETWEEN", "BEGINSWITH", "CONTAINS", "ENDSWITH", "LIKE", "ANY", "ALL", "SOME",
        "TRUEPREDICATE", "FALSEPREDICATE", "TRUE", "NO", "nil", "CAST", "FUNCTION", "SUBQUERY",
        "(", ")", "{", "}", ",", "[c]", "[", "]", ".", "@count", "@", "$v", "#", "%", "%@", "%@", "%@", "%K", "%d",
        "1", "-1", "2.5", "1e3", "0x1F", "-", "+", "*", "/", "99999999999999999999",
        "'Thai'", "\"x\"", "'", "\"", "\\", "'a\\'b'", "\"\\u00e9\"", "\"\\u12\"",
        "distanceToLocation:fromLocation:", "distanceToLocation:fromLocation:(location, %@)", "'NSDate'", "\"CLLocation\"", "'1,2'",
        "é", "\u{301}", "\u{0}", "\u{7}", "🍜", " ", "\n", ":", ";",
    ]

    private static func randomArgument(_ rng: inout SplitMix64) -> Any {
        switch rng.next() % 12 {
        case 0: "Thai"
        case 1: Int.random(in: -5...5, using: &rng)
        case 2: Double.random(in: -10...10, using: &rng)
        case 3: Bool.random(using: &rng)
        case 4: Date(timeIntervalSinceReferenceDate: Double(rng.next() % 1_000_000))
        case 5: Location(latitude: 1, longitude: 2)
        case 6: ["a", "b"]
        case 7: [1, 2]
        case 8: Record.ID(recordName: "r")
        case 9: "location"
        case 10: Data([1, 2])
        default: Optional<Int>.none as Any
        }
    }

    private static func check(_ format: String, _ args: [Any]) {
        let predicate = Predicate(format: format, argumentArray: args)
        do {
            let node = try predicate.validatedNode()
            let reparsed = try Predicate(format: predicate.predicateFormat).validatedNode()
            #expect(reparsed == node, "round trip of '\(format)' via '\(predicate.predicateFormat)'")
        } catch let error as CloudError {
            #expect(error.code == .invalidArguments, "\(format)")
            #expect(!error.message.isEmpty)
            #expect(!error.message.unicodeScalars.contains { $0.properties.generalCategory == .control }, "raw control character in \(error.message)")
        } catch {
            Issue.record("non-CloudError \(error) for '\(format)'")
        }
    }

    @Test func tokenSoupsParseOrFailCleanly() {
        var rng = SplitMix64(state: 0xF00D)
        var parsedCount = 0
        for _ in 0..<4_000 {
            let length = Int(rng.next() % 9) + 1
            let format = (0..<length).map { _ in Self.vocabulary[Int(rng.next() % UInt64(Self.vocabulary.count))] }
                .joined(separator: rng.next() % 4 == 0 ? "" : " ")
            let args = (0..<Int(rng.next() % 4)).map { _ in Self.randomArgument(&rng) }
            Self.check(format, args)
            if (try? Predicate(format: format, argumentArray: args).validatedNode()) != nil { parsedCount += 1 }
        }
        // The soup is not all garbage: some of it must be valid, or the fuzz proves little.
        #expect(parsedCount > 0)
    }

    @Test func grammaticalSoupsParseOrFailCleanly() {
        var rng = SplitMix64(state: 42)
        let keys = ["a", "rating", "tags", "creationDate", "recordID", "%K", "self", "#and"]
        let ops = ["==", "!=", "<", ">=", "IN", "BETWEEN", "BEGINSWITH", "CONTAINS", "ENDSWITH"]
        let values = ["1", "-2.5", "'x'", "%@", "{1, 2}", "{'a', %@}", "TRUE", "CAST(3, 'NSDate')", "CAST('1,2', 'CLLocation')"]
        var parsedCount = 0
        for _ in 0..<3_000 {
            let clauses = (0..<Int(rng.next() % 3) + 1).map { _ -> String in
                let pick = { (list: [String]) in list[Int(rng.next() % UInt64(list.count))] }
                var clause = "\(pick(keys)) \(pick(ops)) \(pick(values))"
                if rng.next() % 5 == 0 { clause = "NOT (\(clause))" }
                if rng.next() % 7 == 0 { clause = "distanceToLocation:fromLocation:(\(pick(keys)), \(pick(values))) \(pick(ops)) \(pick(values))" }
                return clause
            }
            let format = clauses.joined(separator: rng.next() % 6 == 0 ? " OR " : " AND ")
            let args = (0..<Int(rng.next() % 4)).map { _ in Self.randomArgument(&rng) }
            Self.check(format, args)
            if (try? Predicate(format: format, argumentArray: args).validatedNode()) != nil { parsedCount += 1 }
        }
        #expect(parsedCount > 30)
    }

    @Test func randomCharactersParseOrFailCleanly() {
        var rng = SplitMix64(state: 7)
        let alphabet = Array("aZ_09 .,:;'\"\\%@$#!=<>&|(){}[]+-*/^~`?\u{0}\u{1B}\u{7F}é\u{301}🍜\n\t")
        for _ in 0..<2_000 {
            let length = Int(rng.next() % 30)
            let format = String((0..<length).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
            Self.check(format, [])
        }
    }

    @Test func veryLongAndDeepInputsDoNotCrash() throws {
        let long = Array(repeating: "a == 1", count: 2_000).joined(separator: " AND ")
        #expect((try? Predicate(format: long).validatedNode()).map { if case .and(let items) = $0 { items.count } else { 0 } } == 2_000)
        let deep = String(repeating: "(", count: 50) + "a == 1" + String(repeating: ")", count: 50)
        #expect(try Predicate(format: deep).validatedNode() == .comparison(.field("a"), .equal, .int64(1)))
        let nots = String(repeating: "NOT ", count: 51) + "a < 1"
        #expect(try Predicate(format: nots).validatedNode() == .not(.comparison(.field("a"), .less, .int64(1))))
        // Hostile nesting fails cleanly instead of exhausting the stack.
        for hostile in [String(repeating: "(", count: 100_000), String(repeating: "NOT ", count: 100_000) + "a < 1",
                        "a == " + String(repeating: "CAST(", count: 100_000)] {
            let error = try #require(Predicate(format: hostile).validatedNodeError())
            #expect(error.message.contains("levels deep"))
        }
    }
}
