import Foundation
import Testing
@testable import LocalCloud

/// The index checks a query goes through before any SQL runs, with CloudKit's wording.
@Suite struct SchemaQueryIndexTests {
    func schema(_ edits: (inout Schema) throws -> Void = { _ in }) throws -> Schema {
        var schema = try Schema().applying(recordType: "Restaurant", fields: [
            "name": .string("a"), "type": .string("Thai"), "tags": .list([.string("x")]),
            "spot": .location(Location(latitude: 1, longitude: 2)), "rating": .double(1),
        ])
        try schema.setIndex(.queryable, true, type: "Restaurant", field: "recordName")
        try edits(&schema)
        return schema
    }

    func node(_ format: String, _ args: Any...) throws -> PredicateNode {
        try Predicate(format: format, argumentArray: args).validatedNode()
    }

    func expectError(_ schema: Schema, _ predicate: PredicateNode, sort: [PredicateKey] = [], _ message: String,
                     code: CloudError.Code = .invalidArguments) throws {
        let error = try #require(throws: CloudError.self) {
            try schema.checkIndexes(recordType: "Restaurant", predicate: predicate, sortKeys: sort)
        }
        #expect(error.code == code)
        #expect(error.message == message)
    }

    @Test func typeWithoutQueryableRecordNameIsNotIndexable() throws {
        let bare = try Schema().applying(recordType: "Restaurant", fields: ["name": .string("a")])
        try expectError(bare, .truePredicate, "Type is not marked indexable: Restaurant")
        try expectError(Schema(), .truePredicate, "Did not find record type: Restaurant", code: .unknownItem)
        try schema().checkIndexes(recordType: "Restaurant", predicate: .truePredicate, sortKeys: [])
    }

    @Test func filteredFieldMustBeQueryable() throws {
        let plain = try schema()
        for format in ["type == 'Thai'", "type IN {'Thai', 'Lao'}", "type BEGINSWITH 'Th'", "rating BETWEEN {1, 2}",
                       "NOT (type IN {'Thai'})", "tags CONTAINS 'x'", "name == 'a' AND type == 'Thai'"] {
            let predicate = try node(format)
            let error = try #require(throws: CloudError.self, "\(format)") {
                try plain.checkIndexes(recordType: "Restaurant", predicate: predicate, sortKeys: [])
            }
            #expect(error.code == .invalidArguments)
            #expect(error.message.hasPrefix("Field '") && error.message.hasSuffix("' is not marked queryable"), "\(error.message)")
        }
        try expectError(plain, try node("type == 'Thai'"), "Field 'type' is not marked queryable")
        try expectError(plain, try node("distanceToLocation:fromLocation:(spot, %@) < 5", Location(latitude: 0, longitude: 0)),
                        "Field 'spot' is not marked queryable")
        try expectError(plain, try node("creatorUserRecordID == %@", Record.ID(recordName: "_alice")),
                        "Field 'createdUserRecordName' is not marked queryable")
        try expectError(plain, try node("menu == 'x'"), "Field 'menu' is not marked queryable: type 'Restaurant' has no such field")

        let indexed = try schema {
            for field in ["type", "rating", "tags", "spot", "name", "createdBy"] {
                try $0.setIndex(.queryable, true, type: "Restaurant", field: field)
            }
        }
        for format in ["type == 'Thai'", "rating BETWEEN {1, 2}", "tags CONTAINS 'x'", "name == 'a' AND type == 'Thai'",
                       "recordName == 'abc'"] {
            try indexed.checkIndexes(recordType: "Restaurant", predicate: try node(format), sortKeys: [])
        }
        try indexed.checkIndexes(recordType: "Restaurant", predicate: try node("creatorUserRecordID == %@", Record.ID(recordName: "_a")), sortKeys: [])
    }

    @Test func sortKeyMustBeSortable() throws {
        let plain = try schema()
        let byDate = try SortDescriptor(key: "creationDate", ascending: false).validatedKey()
        try expectError(plain, .truePredicate, sort: [byDate], "Field 'createdTimestamp' is not marked sortable")
        try expectError(plain, .truePredicate, sort: [.field("name")], "Field 'name' is not marked sortable")
        try expectError(plain, .truePredicate, sort: [.modificationDate], "Field 'modifiedTimestamp' is not marked sortable")
        let sortable = try schema {
            try $0.setIndex(.sortable, true, type: "Restaurant", field: "createdTimestamp")
            try $0.setIndex(.sortable, true, type: "Restaurant", field: "name")
        }
        try sortable.checkIndexes(recordType: "Restaurant", predicate: .truePredicate, sortKeys: [byDate, .field("name")])
        // Queryable is not sortable.
        let queryableOnly = try schema { try $0.setIndex(.queryable, true, type: "Restaurant", field: "rating") }
        try expectError(queryableOnly, .truePredicate, sort: [.field("rating")], "Field 'rating' is not marked sortable")
    }

    @Test func textSearchNeedsASearchableField() throws {
        let search = try node("self CONTAINS 'noodle'")
        try expectError(try schema(), search, "Field 'self' is not marked searchable: no field of type 'Restaurant' is SEARCHABLE")
        try schema { try $0.setIndex(.searchable, true, type: "Restaurant", field: "name") }
            .checkIndexes(recordType: "Restaurant", predicate: search, sortKeys: [])
    }
}
