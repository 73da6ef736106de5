import Foundation
import Testing
@testable import LocalCloud

private typealias Predicate = LocalCloud.Predicate

/// `predicateFormat` writes a string that parses back to the same node.
struct PredicateFormatTests {
    private func roundTrip(_ node: PredicateNode, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let format = PredicateFormatter.format(node)
        let reparsed = try Predicate(format: format).validatedNode()
        #expect(reparsed == node, "\(format)", sourceLocation: sourceLocation)
        #expect(PredicateFormatter.format(reparsed) == format, sourceLocation: sourceLocation)
    }

    @Test(arguments: 0..<PredicateParserTests.accepted.count)
    func everyAcceptedFormRoundTrips(_ index: Int) throws {
        let (format, node) = PredicateParserTests.accepted[index]
        let predicate = Predicate(format: format)
        #expect(try Predicate(format: predicate.predicateFormat).validatedNode() == node, "\(format) → \(predicate.predicateFormat)")
    }

    @Test func formatsReadably() {
        #expect(Predicate(format: "3 < rating AND type == %@", "Thai").predicateFormat == "rating > 3 AND type == \"Thai\"")
        #expect(Predicate(format: "NOT a IN {1, 2.5}").predicateFormat == "NOT (a IN {1, 2.5})")
        #expect(Predicate(format: "self contains 'pad thai'").predicateFormat == "SELF CONTAINS \"pad thai\"")
        #expect(Predicate(format: "recordName == 'r1'").predicateFormat == "recordID == \"r1\"")
        #expect(Predicate(format: "#in == 1").predicateFormat == "#in == 1")
        #expect(Predicate(format: "creationDate > CAST(5, 'NSDate')").predicateFormat == "creationDate > CAST(5.0, \"NSDate\")")
        #expect(Predicate(format: "distanceToLocation:fromLocation:(location, %@) < 5", Location(latitude: 1.5, longitude: -2)).predicateFormat
            == "distanceToLocation:fromLocation:(location, CAST(\"1.5,-2.0\", \"CLLocation\")) < 5.0")
    }

    @Test func valuesWithoutLiteralsRoundTrip() throws {
        let dates = [Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: -1e9 + 0.123), Date(timeIntervalSince1970: 1_700_000_000.000_001)]
        for date in dates {
            try roundTrip(.comparison(.creationDate, .less, .date(date)))
        }
        try roundTrip(.comparison(.field("blob"), .equal, .bytes(Data([0, 1, 2, 255]))))
        try roundTrip(.comparison(.field("blob"), .equal, .bytes(Data())))
        let reference = Record.Reference(recordID: Record.ID(recordName: "a\"b:c", zoneID: RecordZone.ID(zoneName: "Z", ownerName: "o'wn")), action: .deleteSelf)
        try roundTrip(.comparison(.field("owner"), .equal, .reference(reference)))
        try roundTrip(.in(.field("owner"), [.reference(reference), .reference(Record.Reference(recordID: Record.ID(recordName: "x"), action: .none))]))
        try roundTrip(.distance(.field("location"), Location(latitude: -33.868_820_1, longitude: 151.209_296, altitude: 12.5), .greaterOrEqual, kilometres: 0.001))
        try roundTrip(.comparison(.field("x"), .equal, .double(.leastNonzeroMagnitude)))
        try roundTrip(.comparison(.field("x"), .equal, .double(1.797_693_134_862_315_7e308)))
        try roundTrip(.comparison(.field("x"), .equal, .double(1e20)))
        try roundTrip(.comparison(.field("x"), .less, .double(-0.1)))
        try roundTrip(.comparison(.field("x"), .less, .int64(.min)))
    }

    @Test func awkwardStringsRoundTrip() throws {
        let strings = ["", "'", "\"", "\\", "\\u0041", "a\nb\tc\r", "\u{0}\u{1}\u{7F}", "\u{301}x", "x\u{301}", "e\u{301}\"", "🍜 食堂 ünï", "%@ %K $x", "AND OR NOT", "\u{2028}"]
        for string in strings {
            try roundTrip(.comparison(.field("name"), .equal, .string(string)))
            try roundTrip(.beginsWith(.field("name"), string))
            try roundTrip(.listContains(.field("tags"), .string(string)))
        }
        try roundTrip(.textSearch("\"quoted\" \u{301}words"))
    }

    @Test func reservedFieldNamesAreEscaped() throws {
        for name in ["in", "AND", "self", "Cast", "between", "yes", "nil", "any"] {
            try roundTrip(.comparison(.field(name), .equal, .int64(1)))
        }
    }

    @Test func everyNodeShapeRoundTrips() throws {
        let nodes: [PredicateNode] = [
            .truePredicate, .falsePredicate,
            .and([.comparison(.field("a"), .equal, .int64(1)), .not(.in(.field("b"), [.string("x")])), .between(.modificationDate, .date(Date(timeIntervalSinceReferenceDate: 1)), .date(Date(timeIntervalSinceReferenceDate: 2)))]),
            .not(.comparison(.field("a"), .lessOrEqual, .double(2.5))),
            .not(.beginsWith(.field("a"), "p")),
            .not(.listContains(.field("tags"), .int64(3))),
            .in(.field("a"), []),
            .in(.recordName, [.string("r1"), .string("r2")]),
            .comparison(.creatorUserRecordID, .notEqual, .string("_u")),
            .comparison(.lastModifiedUserRecordID, .equal, .string("_u")),
            .comparison(.field("open"), .equal, .bool(false)),
            .textSearch("noodle soup"),
            .textSearchAsTyped("cafe de"),
            .textSearchAsTyped("拉麵 \"caf "),
            .distance(.field("loc"), Location(latitude: 0, longitude: 0), .greater, kilometres: 10),
        ]
        for node in nodes { try roundTrip(node) }
    }
}
