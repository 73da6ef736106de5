import Foundation
import Testing
@testable import LocalCloud

@Suite struct SchemaTests {
    let restaurant: [String: FieldValue] = [
        "name": .string("Cafe Deadend"), "rating": .double(4.5), "visits": .int64(3),
        "open": .bool(true), "tags": .list([.string("thai"), .string("cheap")]),
    ]

    @Test func developmentCreatesTypesAndFieldsJustInTime() throws {
        let schema = try Schema().applying(recordType: "Restaurant", fields: restaurant)
        let type = try #require(schema.recordTypes["Restaurant"])
        #expect(schema.version == 1)
        #expect(type.userFields.map(\.name) == ["name", "open", "rating", "tags", "visits"])
        #expect(type.field(named: "open")?.type == .int64, "Bool is stored as INT64, as in CloudKit")
        #expect(type.field(named: "tags")?.type == .list(.string))
        #expect(type.field(named: "rating")?.type == .double)
        #expect(type.fields.filter(\.isSystem).count == 6)
        #expect(type.grants == RecordTypeSchema.defaultGrants)
        #expect(!type.system(.recordID).isQueryable, "recordName is not queryable until someone adds the index")
        #expect(!type.system(.createTime).isSortable)
        #expect(type.fields.allSatisfy { $0.indexes.isEmpty })

        let grown = try schema.applying(recordType: "Restaurant", fields: ["phone": .string("123"), "name": .string("x")])
        #expect(grown.version == 2)
        #expect(grown.recordTypes["Restaurant"]?.userFields.last?.name == "phone")
        let same = try grown.applying(recordType: "Restaurant", fields: ["phone": .string("456")])
        #expect(same == grown, "a save that adds nothing leaves the schema and its version alone")
        #expect(try grown.checkingSave(recordType: "Restaurant", fields: ["name": .string("y")], justInTime: true) == nil)
    }

    @Test func developmentRefusesATypeChangeNamingFieldAndBothTypes() throws {
        let schema = try Schema().applying(recordType: "Restaurant", fields: restaurant)
        let error = try #require(throws: CloudError.self) {
            _ = try schema.applying(recordType: "Restaurant", fields: ["rating": .string("good")])
        }
        #expect(error.code == .invalidArguments)
        #expect(error.message.contains("'rating'") && error.message.contains("STRING") && error.message.contains("DOUBLE"))
        #expect(throws: CloudError.self) { _ = try schema.applying(recordType: "Restaurant", fields: ["tags": .string("x")]) }
        #expect(throws: CloudError.self) { _ = try schema.applying(recordType: "Restaurant", fields: ["name": .list([.string("x")])]) }
        // An empty list fits a list field, but not a scalar one.
        #expect(try schema.applying(recordType: "Restaurant", fields: ["tags": .list([])]) == schema)
        #expect(throws: CloudError.self) { _ = try schema.applying(recordType: "Restaurant", fields: ["name": .list([])]) }
        // Mixed lists, system fields and bad names are refused too.
        #expect(throws: CloudError.self) { _ = try schema.applying(recordType: "Restaurant", fields: ["mix": .list([.string("a"), .int64(1)])]) }
        #expect(throws: CloudError.self) { _ = try schema.applying(recordType: "Restaurant", fields: ["___recordID": .string("a")]) }
        #expect(throws: CloudError.self) { _ = try schema.applying(recordType: "Bad-Type", fields: [:]) }
        #expect(throws: CloudError.self) { _ = try schema.applying(recordType: "Restaurant", fields: ["1st": .string("a")]) }
    }

    @Test func productionRefusesUnknownTypesAndFields() throws {
        let production = try Schema().applying(recordType: "Restaurant", fields: restaurant)
        try production.validate(recordType: "Restaurant", fields: ["name": .string("ok"), "open": .bool(false)])
        #expect(try production.checkingSave(recordType: "Restaurant", fields: ["name": .string("ok")], justInTime: false) == nil)

        let newType = try #require(throws: CloudError.self) {
            try production.validate(recordType: "Review", fields: ["text": .string("x")])
        }
        #expect(newType.code == .invalidArguments)
        #expect(newType.message == "Cannot create new type Review in production schema")

        let newField = try #require(throws: CloudError.self) {
            _ = try production.checkingSave(recordType: "Restaurant", fields: ["menu": .string("x")], justInTime: false)
        }
        #expect(newField.code == .invalidArguments)
        #expect(newField.message.hasPrefix("Cannot create new field 'menu' in production schema"))

        let wrongType = try #require(throws: CloudError.self) {
            try production.validate(recordType: "Restaurant", fields: ["visits": .double(1)])
        }
        #expect(wrongType.message.contains("'visits'") && wrongType.message.contains("INT64"))
    }

    @Test func deployCopiesDefinitionsAndKeepsProductionMembers() throws {
        var development = try Schema().applying(recordType: "Restaurant", fields: restaurant)
        try development.setIndex(.queryable, true, type: "Restaurant", field: "recordName")
        try development.setIndex(.sortable, true, type: "Restaurant", field: "createdTimestamp")
        try development.createRole("Moderator")
        try development.grant(.write, to: "Moderator", on: "Restaurant")
        try development.assign(role: "Moderator", to: "devuser")

        var production = Schema()
        production.roles = ["Moderator"]
        try production.assign(role: "Moderator", to: "carol")
        let deployed = try development.deploying(to: production)
        #expect(deployed.recordTypes == development.recordTypes)
        #expect(deployed.roles == ["Moderator"])
        #expect(deployed.members == ["carol": ["Moderator"]], "role members are data of each environment")
        #expect(deployed.version == production.version + 1)
        #expect(try development.deploying(to: deployed) == deployed, "deploying again changes nothing")

        // Adding fields and dropping an index afterwards is fine.
        var later = try development.applying(recordType: "Restaurant", fields: ["phone": .string("1")])
        try later.setIndex(.sortable, false, type: "Restaurant", field: "createdTimestamp")
        let again = try later.deploying(to: deployed)
        #expect(again.recordTypes["Restaurant"]?.field(named: "phone") != nil)
        #expect(again.recordTypes["Restaurant"]?.system(.createTime).isSortable == false)
    }

    @Test func deployRefusesDestructiveChanges() throws {
        let production = try Schema()
            .applying(recordType: "Restaurant", fields: restaurant)
            .applying(recordType: "Review", fields: ["text": .string("x")])
        var development = try Schema().applying(recordType: "Restaurant", fields: restaurant)
        development.recordTypes["Restaurant"]?.fields.removeAll { $0.name == "visits" }
        development.recordTypes["Restaurant"]?.update("rating") { $0.type = .string }

        let error = try #require(throws: CloudError.self) { _ = try development.deploying(to: production) }
        #expect(error.code == .invalidArguments)
        #expect(error.message.hasPrefix("Cannot deploy to production: destructive change"))
        #expect(error.message.contains("record type 'Review' would be removed"))
        #expect(error.message.contains("field 'Restaurant.visits' would be removed"))
        #expect(error.message.contains("'Restaurant.rating' would change type from DOUBLE to STRING"))
    }

    @Test func indexEditsCheckTypesAndNames() throws {
        var schema = try Schema().applying(recordType: "Restaurant", fields: restaurant.merging(["image": .bytes(Data([1]))]) { a, _ in a })
        try schema.setIndex(.searchable, true, type: "Restaurant", field: "name")
        try schema.setIndex(.queryable, true, type: "Restaurant", field: "___recordID")
        try schema.setIndex(.queryable, true, type: "Restaurant", field: "createdBy")
        let type = try #require(schema.recordTypes["Restaurant"])
        #expect(type.field(named: "name")?.isSearchable == true)
        #expect(type.system(.recordID).isQueryable && type.system(.createdBy).isQueryable)

        #expect(throws: CloudError.self) { try schema.setIndex(.searchable, true, type: "Restaurant", field: "rating") }
        #expect(throws: CloudError.self) { try schema.setIndex(.queryable, true, type: "Restaurant", field: "image") }
        #expect(throws: CloudError.self) { try schema.setIndex(.sortable, true, type: "Restaurant", field: "tags") }
        #expect(throws: CloudError.self) { try schema.setIndex(.searchable, true, type: "Restaurant", field: "recordName") }
        let unknown = try #require(throws: CloudError.self) { try schema.setIndex(.queryable, true, type: "Restaurant", field: "nope") }
        #expect(unknown.code == .unknownItem)
        #expect(throws: CloudError.self) { try schema.setIndex(.queryable, true, type: "Nope", field: "name") }
    }

    @Test func schemaIsCodableAndVersioned() throws {
        var schema = try Schema().applying(recordType: "Restaurant", fields: restaurant)
        try schema.createRole("Moderator")
        try schema.assign(role: "Moderator", to: "alice")
        let data = try JSONEncoder().encode(schema)
        let decoded = try JSONDecoder().decode(Schema.self, from: data)
        #expect(decoded == schema)
        #expect(decoded.formatVersion == Schema.formatVersion)
        #expect(String(decoding: data, as: UTF8.self).contains("\"LIST<STRING>\""))
    }
}
