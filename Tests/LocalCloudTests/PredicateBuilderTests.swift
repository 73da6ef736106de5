import Foundation
import Testing
@testable import LocalCloud

private typealias Predicate = LocalCloud.Predicate

struct PredicateBuilderTests {
    private let here = Location(latitude: 22.28, longitude: 114.16)

    @Test func buildsTheSameNodesAsFormats() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let id = Record.ID(recordName: "r1")
        let pairs: [(Predicate, Predicate)] = [
            (Predicate.field("type") == "Thai", Predicate(format: "type == %@", "Thai")),
            (Predicate.field("rating") != 3, Predicate(format: "rating != 3")),
            (Predicate.field("rating") < 3.5, Predicate(format: "rating < 3.5")),
            (Predicate.field("rating") <= Int64(3), Predicate(format: "rating <= 3")),
            (Predicate.field("rating") > Int32(3), Predicate(format: "rating > 3")),
            (Predicate.field("rating") >= Float(0.5), Predicate(format: "rating >= 0.5")),
            (Predicate.field("isOpen") == true, Predicate(format: "isOpen == TRUE")),
            (Predicate.field("type") == "Thai" && Predicate.field("rating") > 3, Predicate(format: "type == 'Thai' AND rating > 3")),
            (Predicate.field("a") == 1 && Predicate.field("b") == 2 && Predicate.field("c") == 3, Predicate(format: "a == 1 AND (b == 2 AND c == 3)")),
            (Predicate.and([Predicate.field("a") == 1, Predicate(value: true)]), Predicate(format: "a == 1 AND TRUEPREDICATE")),
            (Predicate.and([]), Predicate(value: true)),
            (Predicate.field("name").beginsWith("Ca"), Predicate(format: "name BEGINSWITH 'Ca'")),
            (Predicate.field("type").in(["Thai", "Cafe"]), Predicate(format: "type IN {'Thai', 'Cafe'}")),
            (Predicate.field("rating").in([1, 2.5]), Predicate(format: "rating IN {1, 2.5}")),
            (Predicate.field("rating").between(1, 5), Predicate(format: "rating BETWEEN {1, 5}")),
            (Predicate.field("tags").contains("vegan"), Predicate(format: "tags CONTAINS 'vegan'")),
            (Predicate.textSearch("pad thai"), Predicate(format: "self CONTAINS 'pad thai'")),
            (Predicate.field("location").distance(from: here) < 5, Predicate(format: "distanceToLocation:fromLocation:(location, %@) < 5", here)),
            (Predicate.field("location").distance(from: here) >= 1, Predicate(format: "distanceToLocation:fromLocation:(location, %@) >= 1", here)),
            (!(Predicate.field("a") == 1), Predicate(format: "a != 1")),
            (!(Predicate.field("a") < 1), Predicate(format: "NOT a < 1")),
            (!Predicate.field("type").in(["x"]), Predicate(format: "NOT type IN {'x'}")),
            (Predicate.Field.creationDate > date, Predicate(format: "creationDate > %@", date)),
            (Predicate.Field.modificationDate <= date, Predicate(format: "modificationDate <= %@", date)),
            (Predicate.field("creationDate") > date, Predicate(format: "creationDate > %@", date)),
            (Predicate.Field.recordID == id, Predicate(format: "recordID == 'r1'")),
            (Predicate.Field.recordName.in([id, "r2"]), Predicate(format: "recordName IN {'r1', 'r2'}")),
            (Predicate.Field.creatorUserRecordID == Record.ID(recordName: "_u"), Predicate(format: "creatorUserRecordID == '_u'")),
            (Predicate.Field.lastModifiedUserRecordID != "_u", Predicate(format: "lastModifiedUserRecordID != '_u'")),
            (Predicate.field("owner") == id, Predicate(format: "owner == %@", id)),
        ]
        for (built, parsed) in pairs {
            let expected = try parsed.validatedNode()
            #expect(try built.validatedNode() == expected, "\(parsed.predicateFormat)")
            #expect(built.predicateFormat == parsed.predicateFormat)
            #expect(try Predicate(format: built.predicateFormat).validatedNode() == expected, "round trip of \(built.predicateFormat)")
        }
    }

    @Test func misuseIsRememberedNotCrashing() throws {
        let cases: [(Predicate, String)] = [
            (Predicate.field("a.b") == 1, "key paths"),
            (Predicate.field("") == 1, "invalid key"),
            (Predicate.field("_x") == 1, "_x"),
            (Predicate.Field.recordID.beginsWith("r"), "BEGINSWITH"),
            (Predicate.Field.recordID < "r", "recordID supports only"),
            (Predicate.Field.creationDate > "yesterday", "creationDate must be compared with a Date"),
            (Predicate.field("location") == here, "distanceToLocation"),
            (Predicate.field("a") < Double.nan, "finite"),
            (Predicate.field("location").distance(from: here) < .infinity, "kilometres"),
            (Predicate.Field.creationDate.distance(from: here) < 1, "creationDate"),
            (Predicate.field("rating").between(true, false), "BETWEEN"),
            (Predicate.textSearch("  "), "self CONTAINS"),
            (Predicate.textSearch(asTyped: " %@ "), "self CONTAINS_AS_TYPED needs at least one word"),
            (!Predicate.textSearch(asTyped: "caf"), "NOT cannot negate a 'self CONTAINS'"),
            (!(Predicate.field("a") == 1 && Predicate.field("b") == 2), "NOT cannot negate an AND"),
            (!Predicate.textSearch("x"), "NOT cannot negate a 'self CONTAINS'"),
            (!Predicate.field("a").between(1, 2), "NOT cannot negate BETWEEN"),
            (!(Predicate.field("l").distance(from: here) < 1), "NOT cannot negate distance"),
            (Predicate.field("ok") == 1 && Predicate(format: "a == 1 OR b == 2"), "OR"),
            (Predicate.field("isOpen") > true, ">"),
        ]
        for (predicate, part) in cases {
            let error = try #require(predicate.validatedNodeError(), "\(part) should fail")
            #expect(error.code == .invalidArguments)
            #expect(error.message.contains(part), "\(error.message)")
            #expect(predicate.predicateFormat.hasPrefix("<invalid predicate: ") || predicate.predicateFormat.contains("OR"))
        }
    }

    @Test func predicatesAreSendable() async throws {
        let predicate = Predicate.field("type") == "Thai"
        let node = try await Task.detached { try predicate.validatedNode() }.value
        #expect(node == .comparison(.field("type"), .equal, .string("Thai")))
    }
}
