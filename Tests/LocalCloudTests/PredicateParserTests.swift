import Foundation
import Testing
@testable import LocalCloud

// Foundation has its own `Predicate`; a file-private alias picks LocalCloud's in type positions.
private typealias Predicate = LocalCloud.Predicate

/// Parses `format` with `args` and returns the validated node (or throws).
func parsedNode(_ format: String, _ args: Any...) throws -> PredicateNode {
    try Predicate(format: format, argumentArray: args).validatedNode()
}

/// The `CloudError` a predicate fails with, or `nil` when it parses.
func rejection(_ format: String, _ args: Any...) -> CloudError? {
    do {
        _ = try Predicate(format: format, argumentArray: args).validatedNode()
        return nil
    } catch let error as CloudError {
        return error
    } catch {
        Issue.record("non-CloudError \(error) for '\(format)'")
        return nil
    }
}

private func field(_ name: String) -> PredicateKey { .field(name) }

struct PredicateParserTests {
    // MARK: Accepted forms (literals only)

    static let accepted: [(String, PredicateNode)] = [
        ("TRUEPREDICATE", .truePredicate),
        ("FALSEPREDICATE", .falsePredicate),
        ("  truepredicate  ", .truePredicate),
        ("type == 'Thai'", .comparison(field("type"), .equal, .string("Thai"))),
        ("type = \"Thai\"", .comparison(field("type"), .equal, .string("Thai"))),
        ("rating != 3", .comparison(field("rating"), .notEqual, .int64(3))),
        ("rating <> 3", .comparison(field("rating"), .notEqual, .int64(3))),
        ("rating < 3", .comparison(field("rating"), .less, .int64(3))),
        ("rating <= 3", .comparison(field("rating"), .lessOrEqual, .int64(3))),
        ("rating =< 3", .comparison(field("rating"), .lessOrEqual, .int64(3))),
        ("rating > 3.5", .comparison(field("rating"), .greater, .double(3.5))),
        ("rating >= -2", .comparison(field("rating"), .greaterOrEqual, .int64(-2))),
        ("rating => 2", .comparison(field("rating"), .greaterOrEqual, .int64(2))),
        ("rating == 1.5e3", .comparison(field("rating"), .equal, .double(1500))),
        ("rating == -0.25", .comparison(field("rating"), .equal, .double(-0.25))),
        ("count == 0x1F", .comparison(field("count"), .equal, .int64(31))),
        ("count == -9223372036854775808", .comparison(field("count"), .equal, .int64(.min))),
        ("count == 9223372036854775807", .comparison(field("count"), .equal, .int64(.max))),
        // Value on the left: normalized to key on the left with the operator flipped.
        ("3 < rating", .comparison(field("rating"), .greater, .int64(3))),
        ("3 <= rating", .comparison(field("rating"), .greaterOrEqual, .int64(3))),
        ("3 > rating", .comparison(field("rating"), .less, .int64(3))),
        ("3 >= rating", .comparison(field("rating"), .lessOrEqual, .int64(3))),
        ("'Thai' == type", .comparison(field("type"), .equal, .string("Thai"))),
        ("'Thai' != type", .comparison(field("type"), .notEqual, .string("Thai"))),
        ("isOpen == TRUE", .comparison(field("isOpen"), .equal, .bool(true))),
        ("isOpen == yes", .comparison(field("isOpen"), .equal, .bool(true))),
        ("isOpen == NO", .comparison(field("isOpen"), .equal, .bool(false))),
        ("isOpen == false", .comparison(field("isOpen"), .equal, .bool(false))),
        ("name == 'it\\'s'", .comparison(field("name"), .equal, .string("it's"))),
        ("name == \"a\\nb\\u0041\\\\\"", .comparison(field("name"), .equal, .string("a\nbA\\"))),
        ("name == 'ünïcödé 🍜 食堂'", .comparison(field("name"), .equal, .string("ünïcödé 🍜 食堂"))),
        ("#in == 1", .comparison(field("in"), .equal, .int64(1))),
        ("#AND == 'x'", .comparison(field("AND"), .equal, .string("x"))),
        ("field_2 == 2", .comparison(field("field_2"), .equal, .int64(2))),
        // System keys.
        ("creationDate > CAST(100.5, 'NSDate')", .comparison(.creationDate, .greater, .date(Date(timeIntervalSinceReferenceDate: 100.5)))),
        ("modificationDate <= CAST(0, \"NSDate\")", .comparison(.modificationDate, .lessOrEqual, .date(Date(timeIntervalSinceReferenceDate: 0)))),
        ("recordName == 'abc'", .comparison(.recordName, .equal, .string("abc"))),
        ("recordID != 'abc'", .comparison(.recordName, .notEqual, .string("abc"))),
        ("recordID IN {'a', 'b'}", .in(.recordName, [.string("a"), .string("b")])),
        ("creatorUserRecordID == 'u1'", .comparison(.creatorUserRecordID, .equal, .string("u1"))),
        ("lastModifiedUserRecordID != 'u2'", .comparison(.lastModifiedUserRecordID, .notEqual, .string("u2"))),
        // AND, flattened; grouping parentheses.
        ("a == 1 AND b == 2 && c == 3", .and([
            .comparison(field("a"), .equal, .int64(1)),
            .comparison(field("b"), .equal, .int64(2)),
            .comparison(field("c"), .equal, .int64(3)),
        ])),
        ("(a == 1 and b == 2) AND (c == 3)", .and([
            .comparison(field("a"), .equal, .int64(1)),
            .comparison(field("b"), .equal, .int64(2)),
            .comparison(field("c"), .equal, .int64(3)),
        ])),
        ("((a == 1))", .comparison(field("a"), .equal, .int64(1))),
        ("TRUEPREDICATE AND a == 1", .and([.truePredicate, .comparison(field("a"), .equal, .int64(1))])),
        // NOT where CloudKit allows it.
        ("NOT a == 1", .comparison(field("a"), .notEqual, .int64(1))),
        ("!(a != 1)", .comparison(field("a"), .equal, .int64(1))),
        ("NOT a < 1", .not(.comparison(field("a"), .less, .int64(1)))),
        ("NOT (a IN {1, 2})", .not(.in(field("a"), [.int64(1), .int64(2)]))),
        ("NOT a BEGINSWITH 'x'", .not(.beginsWith(field("a"), "x"))),
        ("NOT tags CONTAINS 'x'", .not(.listContains(field("tags"), .string("x")))),
        ("NOT NOT a < 1", .comparison(field("a"), .less, .int64(1))),
        ("NOT TRUEPREDICATE", .falsePredicate),
        ("a == 1 AND NOT b IN {2}", .and([.comparison(field("a"), .equal, .int64(1)), .not(.in(field("b"), [.int64(2)]))])),
        // BETWEEN, BEGINSWITH, IN, CONTAINS.
        ("rating BETWEEN {1, 5}", .between(field("rating"), .int64(1), .int64(5))),
        ("creationDate BETWEEN {CAST(1, 'NSDate'), CAST(2, 'NSDate')}", .between(.creationDate, .date(Date(timeIntervalSinceReferenceDate: 1)), .date(Date(timeIntervalSinceReferenceDate: 2)))),
        ("name BEGINSWITH 'Ca'", .beginsWith(field("name"), "Ca")),
        ("name beginswith \"\"", .beginsWith(field("name"), "")),
        ("type IN {'Thai', 'Cafe'}", .in(field("type"), [.string("Thai"), .string("Cafe")])),
        ("type IN {}", .in(field("type"), [])),
        ("tags CONTAINS 'vegan'", .listContains(field("tags"), .string("vegan"))),
        ("'vegan' IN tags", .listContains(field("tags"), .string("vegan"))),
        ("ANY tags == 'vegan'", .listContains(field("tags"), .string("vegan"))),
        ("ANY tags = 3", .listContains(field("tags"), .int64(3))),
        // List matches of several values (CloudKit Web Services' LIST_CONTAINS_ANY/ALL, LIST_MEMBER_BEGINS_WITH).
        ("ANY tags IN {'x'}", .listContains(field("tags"), .string("x"))),
        ("ANY tags IN {'x', 2}", .listContainsAny(field("tags"), [.string("x"), .int64(2)])),
        ("ANY tags IN {}", .falsePredicate),
        ("ALL {'x', 'y'} IN tags", .listContainsAll(field("tags"), [.string("x"), .string("y")])),
        ("ALL {} IN tags", .truePredicate),
        ("ANY tags BEGINSWITH 've'", .listMemberBeginsWith(field("tags"), "ve")),
        ("NOT ANY tags IN {'x', 'y'}", .not(.listContainsAny(field("tags"), [.string("x"), .string("y")]))),
        ("NOT (ALL {'x', 'y'} IN tags)", .not(.listContainsAll(field("tags"), [.string("x"), .string("y")]))),
        ("NOT ANY tags BEGINSWITH 'x'", .not(.listMemberBeginsWith(field("tags"), "x"))),
        // Full-text search.
        ("self CONTAINS 'noodle soup'", .textSearch("noodle soup")),
        ("self CONTAINS_AS_TYPED 'cafe de'", .textSearchAsTyped("cafe de")),
        ("SELF contains_as_typed \"拉麵\" AND x == 1", .and([.textSearchAsTyped("拉麵"), .comparison(field("x"), .equal, .int64(1))])),
        ("SELF contains \"Café\"", .textSearch("Café")),
        ("self CONTAINS 'ramen' OR self CONTAINS 'udon'", .textSearchAny(["ramen", "udon"])),
        ("(self CONTAINS 'a' || SELF CONTAINS 'b') OR self CONTAINS 'c'", .textSearchAny(["a", "b", "c"])),
        ("x == 1 AND (self CONTAINS 'a' OR self CONTAINS 'b')",
         .and([.comparison(field("x"), .equal, .int64(1)), .textSearchAny(["a", "b"])])),
        // Distance (kilometres), either argument order, either side.
        ("distanceToLocation:fromLocation:(location, CAST(\"1.5,2.5\", \"CLLocation\")) < 5",
         .distance(field("location"), Location(latitude: 1.5, longitude: 2.5), .less, kilometres: 5)),
        ("distanceToLocation:fromLocation:(CAST('1.5, 2.5, 10', 'CLLocation'), location) >= 0.5",
         .distance(field("location"), Location(latitude: 1.5, longitude: 2.5, altitude: 10), .greaterOrEqual, kilometres: 0.5)),
        ("5 > distanceToLocation:fromLocation:(location, CAST('1,2', 'CLLocation'))",
         .distance(field("location"), Location(latitude: 1, longitude: 2), .less, kilometres: 5)),
    ]

    @Test(arguments: 0..<accepted.count)
    func acceptedForm(_ index: Int) throws {
        let (format, expected) = Self.accepted[index]
        #expect(try parsedNode(format) == expected, "\(format)")
    }

    // MARK: Accepted forms with arguments

    @Test func valueArguments() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let location = Location(latitude: 22.28, longitude: 114.16)
        let id = Record.ID(recordName: "r1")
        let reference = Record.Reference(recordID: Record.ID(recordName: "r2"), action: .deleteSelf)

        #expect(try parsedNode("type == %@", "Thai") == .comparison(field("type"), .equal, .string("Thai")))
        #expect(try parsedNode("%K == %@", "type", "Thai") == .comparison(field("type"), .equal, .string("Thai")))
        #expect(try parsedNode("%K > %@", "creationDate", date) == .comparison(.creationDate, .greater, .date(date)))
        #expect(try parsedNode("%K == %@", "recordName", id) == .comparison(.recordName, .equal, .string("r1")))
        #expect(try parsedNode("rating > %@", 3) == .comparison(field("rating"), .greater, .int64(3)))
        #expect(try parsedNode("rating > %@", Int32(3)) == .comparison(field("rating"), .greater, .int64(3)))
        #expect(try parsedNode("rating > %@", Int64(3)) == .comparison(field("rating"), .greater, .int64(3)))
        #expect(try parsedNode("rating > %@", Float(1.5)) == .comparison(field("rating"), .greater, .double(1.5)))
        #expect(try parsedNode("rating > %@", 1.25) == .comparison(field("rating"), .greater, .double(1.25)))
        #expect(try parsedNode("rating > %d", 4) == .comparison(field("rating"), .greater, .int64(4)))
        #expect(try parsedNode("rating > %f", 4.5) == .comparison(field("rating"), .greater, .double(4.5)))
        #expect(try parsedNode("isOpen == %@", true) == .comparison(field("isOpen"), .equal, .bool(true)))
        #expect(try parsedNode("blob == %@", Data([1, 2, 3])) == .comparison(field("blob"), .equal, .bytes(Data([1, 2, 3]))))
        #expect(try parsedNode("visited < %@", date) == .comparison(field("visited"), .less, .date(date)))
        #expect(try parsedNode("type == %@", Optional("Thai") as Any) == .comparison(field("type"), .equal, .string("Thai")))

        // Record IDs: record names for the system keys, references for user fields.
        #expect(try parsedNode("recordID == %@", id) == .comparison(.recordName, .equal, .string("r1")))
        #expect(try parsedNode("recordID == %@", reference) == .comparison(.recordName, .equal, .string("r2")))
        // A heterogeneous array literal passed to `Any...` spreads into separate arguments, so wrap it.
        #expect(try Predicate(format: "recordID IN %@", argumentArray: [[id, reference] as [Any]]).validatedNode() == .in(.recordName, [.string("r1"), .string("r2")]))
        #expect(try parsedNode("creatorUserRecordID == %@", Record.ID(recordName: "_u1")) == .comparison(.creatorUserRecordID, .equal, .string("_u1")))
        #expect(try parsedNode("lastModifiedUserRecordID == %@", "_u2") == .comparison(.lastModifiedUserRecordID, .equal, .string("_u2")))
        #expect(try parsedNode("owner == %@", id) == .comparison(field("owner"), .equal, .reference(Record.Reference(recordID: id, action: .none))))
        #expect(try parsedNode("owner == %@", reference) == .comparison(field("owner"), .equal, .reference(reference)))

        // Lists.
        #expect(try parsedNode("type IN %@", ["Thai", "Cafe"]) == .in(field("type"), [.string("Thai"), .string("Cafe")]))
        #expect(try parsedNode("type IN {%@, 'Cafe'}", "Thai") == .in(field("type"), [.string("Thai"), .string("Cafe")]))
        #expect(try parsedNode("rating BETWEEN %@", [1, 5]) == .between(field("rating"), .int64(1), .int64(5)))
        #expect(try parsedNode("rating BETWEEN {%@, %@}", 1.5, 4) == .between(field("rating"), .double(1.5), .int64(4)))
        #expect(try parsedNode("tags CONTAINS %@", "vegan") == .listContains(field("tags"), .string("vegan")))
        #expect(try parsedNode("self CONTAINS %@", "pad thai") == .textSearch("pad thai"))
        #expect(try parsedNode("creationDate > CAST(%@, 'NSDate')", 10.0) == .comparison(.creationDate, .greater, .date(Date(timeIntervalSinceReferenceDate: 10))))

        // Distance: CloudKit's documented form, and the other argument order.
        let expected = PredicateNode.distance(field("location"), location, .less, kilometres: 5)
        #expect(try parsedNode("distanceToLocation:fromLocation:(location, %@) < %@", location, 5) == expected)
        #expect(try parsedNode("distanceToLocation:fromLocation:(%@, location) < %f", location, 5.0) == expected)
        #expect(try parsedNode("distanceToLocation:fromLocation:(%K, %@) < 5", "location", location) == expected)
        #expect(try parsedNode("%@ > distanceToLocation:fromLocation:(location, %@)", 5, location) == expected)
    }

    @Test func formatWithoutArgumentsAcceptsNilArgumentArray() throws {
        #expect(try Predicate(format: "a == 1", argumentArray: nil).validatedNode() == .comparison(field("a"), .equal, .int64(1)))
        #expect(try Predicate(value: true).validatedNode() == .truePredicate)
        #expect(try Predicate(value: false).validatedNode() == .falsePredicate)
        #expect(Predicate(value: true).predicateFormat == "TRUEPREDICATE")
    }

    // MARK: Rejected forms

    /// Each format and a part of the message that must name what is wrong.
    static let rejected: [(String, String)] = [
        ("a == 1 OR b == 2", "OR"),
        ("name CONTAINS_AS_TYPED 'x'", "self CONTAINS_AS_TYPED"),
        ("self CONTAINS_AS_TYPED 'a' OR self CONTAINS 'b'", "OR"),
        ("self CONTAINS_AS_TYPED 3", "needs a string"),
        ("a == 1 || b == 2", "||"),
        ("(a == 1) or (b == 2)", "or"),
        ("name ENDSWITH 'x'", "ENDSWITH"),
        ("name endswith 'x'", "ENDSWITH"),
        ("name LIKE 'x*'", "LIKE"),
        ("name MATCHES '.*'", "MATCHES"),
        ("ALL tags == 'x'", "ALL"),
        ("SOME tags == 'x'", "SOME"),
        ("NONE tags == 'x'", "NONE"),
        ("ANY tags > 'x'", "ANY"),
        ("ANY tags BETWEEN {'x', 'y'}", "ANY"),
        ("ALL tags IN {'x'}", "ALL"),
        ("ALL {'x'} CONTAINS tags", "ALL"),
        ("ANY tags IN {CAST('1,2', 'CLLocation'), 'x'}", "location"),
        ("ANY recordID IN {'a', 'b'}", "recordID"),
        ("ANY tags BEGINSWITH 3", "BEGINSWITH"),
        ("self CONTAINS 'a b' OR self CONTAINS 'c'", "OR"),
        ("self CONTAINS 'a' OR x == 1", "OR"),
        ("self CONTAINS 'a' OR self CONTAINS 'c' AND x == 1", "OR"),
        ("NOT (self CONTAINS 'a' OR self CONTAINS 'b')", "self CONTAINS"),
        ("a.b == 1", "a.b"),
        ("owner.name == 'x'", "owner.name"),
        ("name BEGINSWITH[c] 'x'", "[c]"),
        ("name ==[cd] 'x'", "[cd]"),
        ("a == $x", "$x"),
        ("a == nil", "nil"),
        ("a == NULL", "NULL"),
        ("(a == 1", "never closed"),
        ("((a == 1) AND b == 2", "never closed"),
        ("a == 1)", "')'"),
        ("a == 1 AND (b == 2))", "')'"),
        ("", "empty"),
        ("   ", "empty"),
        ("a == 1 b", "'b'"),
        ("a ==", "end of predicate"),
        ("a == 1 AND", "end of predicate"),
        ("a", "end of predicate"),
        ("== 1", "'=='"),
        ("@count == 1", "@count"),
        ("tags.@count == 1", "tags."),
        ("a + 1 == 2", "'+'"),
        ("a == 1 + 2", "'+'"),
        ("a == 2 * b", "'*'"),
        ("a == -b", "'-'"),
        ("FUNCTION(a, 'x') == 1", "FUNCTION"),
        ("SUBQUERY(tags, $t, $t == 1).@count > 0", "SUBQUERY"),
        ("foo(a) == 1", "foo"),
        ("a[0] == 1", "a[…]"),
        ("lowercase:(name) == 'x'", "lowercase:"),
        ("NOT (a == 1 AND b == 2)", "AND"),
        ("NOT self CONTAINS 'x'", "self CONTAINS"),
        ("NOT a BETWEEN {1, 2}", "BETWEEN"),
        ("NOT distanceToLocation:fromLocation:(l, CAST('1,2', 'CLLocation')) < 1", "distanceToLocation"),
        ("a == b", "two keys"),
        ("1 == 2", "needs a key"),
        ("a BETWEEN {1}", "exactly two"),
        ("a BETWEEN {1, 2, 3}", "exactly two"),
        ("a BETWEEN 1", "exactly two"),
        ("a BETWEEN {TRUE, FALSE}", "BETWEEN"),
        ("a IN 3", "IN"),
        ("a IN b", "IN"),
        ("self == 'x'", "self"),
        ("self CONTAINS 3", "self CONTAINS"),
        ("self CONTAINS '  '", "self CONTAINS"),
        ("name CONTAINS self", "self"),
        ("'x' CONTAINS name", "CONTAINS"),
        ("'x' BEGINSWITH name", "BEGINSWITH"),
        ("name BEGINSWITH 3", "BEGINSWITH"),
        ("recordID < 'x'", "recordID"),
        ("recordName BEGINSWITH 'x'", "BEGINSWITH"),
        ("recordID BETWEEN {'a', 'b'}", "BETWEEN"),
        ("recordID == 3", "recordID"),
        ("creationDate CONTAINS 'x'", "CONTAINS"),
        ("creationDate > 'yesterday'", "creationDate"),
        ("creationDate > 5", "creationDate"),
        ("a == 'unterminated", "unterminated"),
        ("a == \"bad \\u12 escape\"", "\\u"),
        ("a == 99999999999999999999", "64-bit"),
        ("a == 0xFFFFFFFFFFFFFFFFFF", "64-bit"),
        ("a == 1e999", "out of range"),
        ("a == 12abc", "12abc"),
        ("a == 1 ; b == 2", "';'"),
        ("a ~ 1", "'~'"),
        ("a == 1 AND b ^ 2", "'^'"),
        ("a == 1\u{7}", "U+7"),
        ("distanceToLocation:fromLocation:(location, 'x') < 5", "Location"),
        ("distanceToLocation:fromLocation:(location, CAST('1,2', 'CLLocation')) == 5", "=="),
        ("distanceToLocation:fromLocation:(location, CAST('1,2', 'CLLocation')) < 'far'", "kilometres"),
        ("distanceToLocation:fromLocation:(location, CAST('1,2', 'CLLocation'))", "end of predicate"),
        ("distanceToLocation:fromLocation:(a, b) < 1", "distanceToLocation:fromLocation:"),
        ("distanceToLocation:fromLocation:(creationDate, CAST('1,2', 'CLLocation')) < 1", "creationDate"),
        ("distance:(location) < 1", "distance:"),
        ("location == CAST('1,2', 'CLLocation')", "distanceToLocation"),
        ("location IN {CAST('1,2', 'CLLocation')}", "distanceToLocation"),
        ("a == CAST('1,nan', 'CLLocation')", "CAST"),
        ("a == CAST('x', 'NSDate')", "CAST"),
        ("a == CAST(1, 'NSString')", "NSString"),
        ("a == CAST(1 'NSDate')", "','"),
        ("a == {1, 2}", "list"),
        ("a IN {1, {2}}", "nested"),
        ("a IN {1, 2", "never closed"),
        ("a IN {1 2}", "'2'"),
        ("a IN {b}", "values"),
        ("_private == 1", "_private"),
        ("a == %x", "%x"),
        ("a == %", "%"),
        ("isOpen > TRUE", ">"),
        ("owner < CAST('{\"action\":0,\"recordID\":{\"recordName\":\"r\",\"zoneID\":{\"zoneName\":\"z\",\"ownerName\":\"o\"}}}', 'CKReference')", "<"),
        ("TRUEPREDICATE == 1", "'=='"),
        ("AND a == 1", "'AND'"),
        ("NOT", "end of predicate"),
        ("()", "')'"),
    ]

    @Test(arguments: 0..<rejected.count)
    func rejectedForm(_ index: Int) throws {
        let (format, part) = Self.rejected[index]
        let error = try #require(rejection(format), "'\(format)' should be rejected")
        #expect(error.code == .invalidArguments)
        #expect(error.message.contains(part), "'\(format)': \(error.message)")
        #expect(error.message.contains("in predicate '"), "'\(format)': \(error.message)")
    }

    @Test func messagesNameTheOffendingPartAndOffset() throws {
        let or = try #require(rejection("a == 1 OR b == 2"))
        #expect(or.message == "unsupported operator OR at offset 7: CloudKit predicates cannot use OR, except between single-word 'self CONTAINS' searches in predicate 'a == 1 OR b == 2'")
        let paren = try #require(rejection("a == 1 AND b)"))
        #expect(paren.message.hasPrefix("unexpected token ')' at offset 12"))
        let ends = try #require(rejection("name ENDSWITH 'x'"))
        #expect(ends.message.hasPrefix("ENDSWITH is not supported"))
    }

    @Test func argumentCountErrors() throws {
        let few = try #require(rejection("a == %@ AND b == %@", 1))
        #expect(few.code == .invalidArguments)
        #expect(few.message.contains("not enough arguments"))
        #expect(few.message.contains("offset 17"))
        let none = try #require(rejection("%K == 1"))
        #expect(none.message.contains("not enough arguments"))
        let many = try #require(rejection("a == %@", 1, 2))
        #expect(many.message.contains("too many arguments: the format uses 1 but 2 were given"))
        let unused = try #require(rejection("a == 1", "x"))
        #expect(unused.message.contains("too many arguments"))
        let emptyArray = try #require(Optional(Predicate(format: "a == %@", argumentArray: []))).validatedNodeError()
        #expect(emptyArray?.message.contains("not enough arguments") == true)
    }

    @Test func argumentTypeErrors() throws {
        struct Custom {}
        let cases: [(String, [Any], String)] = [
            ("a == %@", [Asset(fileURL: URL(fileURLWithPath: "/tmp/x.jpg"))], "Asset"),
            ("a == %@", [Custom()], "unsupported type Custom"),
            ("a == %@", [Optional<String>.none as Any], "nil"),
            ("a == %@", [NSNull()], "nil"),
            ("a == %@", [Double.nan], "finite"),
            ("a == %@", [Double.infinity], "finite"),
            ("a == %@", [UInt64.max], "unsupported type UInt64"),
            ("a IN %@", [[[1]]], "nested"),
            ("a IN %@", ["x"], "IN"),
            ("a == %@", [[1, 2]], "list"),
            ("a BETWEEN %@", [[1]], "exactly two"),
            ("%K == 1", [5], "%K"),
            ("%K == 1", ["a.b"], "key paths"),
            ("%K == 1", ["has space"], "has space"),
            ("%K == 1", [""], "invalid key"),
            ("a > %d", ["x"], "%d"),
            ("distanceToLocation:fromLocation:(location, %@) < 1", [Location(latitude: .nan, longitude: 0)], "non-finite"),
            ("distanceToLocation:fromLocation:(location, %@) < %@", [Location(latitude: 1, longitude: 2), "far"], "kilometres"),
            ("self CONTAINS %@", [Data([1])], "self CONTAINS"),
            ("creationDate > %@", ["2024-01-01"], "creationDate must be compared with a Date"),
        ]
        for (format, args, part) in cases {
            let error = try #require(rejectionWith(format, args), "'\(format)' with \(args) should be rejected")
            #expect(error.code == .invalidArguments)
            #expect(error.message.contains(part), "'\(format)': \(error.message)")
        }
    }

    @Test func aFailedFormatKeepsItsTextAndNeverThrowsAtInit() {
        let predicate = Predicate(format: "a == 1 OR b == 2")
        #expect(predicate.predicateFormat == "a == 1 OR b == 2")
        #expect(predicate.description == "a == 1 OR b == 2")
    }

    @Test func queryAndSortDescriptors() throws {
        let query = Query(recordType: "Restaurant", predicate: Predicate(format: "type == %@", "Thai"))
        #expect(query.recordType == "Restaurant")
        #expect(query.sortDescriptors == nil)
        let here = Location(latitude: 1, longitude: 2)
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false), LocationSortDescriptor(key: "location", relativeLocation: here)]
        let sorts = try #require(query.sortDescriptors)
        #expect(sorts.count == 2)
        #expect(sorts[0].key == "creationDate" && sorts[0].ascending == false)
        #expect(try sorts[0].validatedKey() == .creationDate)
        #expect((sorts[1] as? LocationSortDescriptor)?.relativeLocation == here)
        #expect(sorts[1].ascending)
        #expect(try sorts[1].validatedKey() == .field("location"))
        #expect(try SortDescriptor(key: "recordName", ascending: true).validatedKey() == .recordName)
        #expect(throws: CloudError.self) { try SortDescriptor(key: "a.b", ascending: true).validatedKey() }
        #expect(try query.predicate.validatedNode() == .comparison(.field("type"), .equal, .string("Thai")))
    }
}

func rejectionWith(_ format: String, _ args: [Any]) -> CloudError? {
    Predicate(format: format, argumentArray: args).validatedNodeError()
}

extension Predicate {
    /// The error `validatedNode()` throws, or `nil`.
    func validatedNodeError() -> CloudError? {
        do {
            _ = try validatedNode()
            return nil
        } catch {
            return error as? CloudError
        }
    }
}
