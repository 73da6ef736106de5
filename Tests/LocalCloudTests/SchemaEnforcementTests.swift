import Foundation
import GRDB
import Testing
@testable import LocalCloud

/// The schema, roles and index rules enforced by a real container on real SQLite files.
@Suite struct SchemaEnforcementTests {
    let cloud = TestCloud()

    func container(_ user: String? = "alice", _ environment: Container.Environment = .development) -> Container {
        cloud.container(user: user, environment: environment, checksIndexes: true)
    }

    func cloudError(_ body: () async throws -> Void) async -> CloudError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? CloudError
        }
    }

    func query(_ db: Database, _ format: String = "TRUEPREDICATE", sort: String? = nil, ascending: Bool = false) async throws -> [Record] {
        let query = Query(recordType: "Restaurant", predicate: Predicate(format: format))
        if let sort { query.sortDescriptors = [SortDescriptor(key: sort, ascending: ascending)] }
        return try await db.records(matching: query).matchResults.map { try $0.1.get() }
    }

    @Test func developmentSchemaGrowsOnSaveAndRefusesATypeChange() async throws {
        let alice = container()
        let record = restaurant("Cafe Deadend")
        record["rating"] = 4.5
        record["open"] = true
        _ = try await alice.publicCloudDatabase.save(record)
        let schema = try await alice.schema()
        let type = try #require(schema.recordTypes["Restaurant"])
        #expect(type.userFields.map(\.name).sorted() == ["name", "open", "rating", "type"])
        #expect(type.field(named: "open")?.type == .int64)
        #expect(type.grants == RecordTypeSchema.defaultGrants)

        let wrong = restaurant("Homei")
        wrong["rating"] = "five stars"
        let error = await cloudError { _ = try await alice.publicCloudDatabase.save(wrong) }
        #expect(error?.code == .invalidArguments)
        #expect(error?.message.contains("'rating'") == true && error?.message.contains("DOUBLE") == true)
        // The refused save left no record and no schema change behind.
        #expect(try await alice.schema() == schema)

        // The private database evolves the same schema.
        let note = Record(recordType: "Note")
        note["text"] = "private"
        _ = try await alice.privateCloudDatabase.save(note)
        #expect(try await alice.schema().recordTypes["Note"] != nil)
    }

    @Test func productionRefusesUnknownTypesAndFieldsUntilDeployed() async throws {
        let production = container("alice", .production)
        let error = await cloudError { _ = try await production.publicCloudDatabase.save(restaurant("Early")) }
        #expect(error?.code == .invalidArguments)
        #expect(error?.message == "Cannot create new type Restaurant in production schema")

        _ = try await container().publicCloudDatabase.save(restaurant("Dev"))
        let (before, after) = try await container().deploySchema()
        #expect(before.recordTypes.isEmpty && after.recordTypes["Restaurant"] != nil)
        _ = try await production.publicCloudDatabase.save(restaurant("Live"))

        let extra = restaurant("Extra")
        extra["menu"] = "noodles"
        let fieldError = await cloudError { _ = try await production.publicCloudDatabase.save(extra) }
        #expect(fieldError?.code == .invalidArguments)
        #expect(fieldError?.message.hasPrefix("Cannot create new field 'menu' in production schema") == true)
        // Production never grows on save, and data stays apart from development's.
        #expect(try await production.schema().recordTypes["Restaurant"]?.field(named: "menu") == nil)
        #expect(try await production.statistics().recordCounts.map(\.count) == [1])
        #expect(try await container().statistics().recordCounts.map(\.count) == [1])
        // The production schema only changes by deploy.
        await #expect(throws: CloudError.self) { try await production.updateSchema { try $0.setIndex(.queryable, true, type: "Restaurant", field: "name") } }
    }

    @Test func deployRefusesADestructiveChangeAndKeepsProduction() async throws {
        let development = container()
        let record = restaurant("A")
        record["rating"] = 4.0
        _ = try await development.publicCloudDatabase.save(record)
        _ = try await development.deploySchema()
        let production = try await container("alice", .production).schema()

        try await development.resetDevelopment()
        #expect(try await development.schema().recordTypes.isEmpty)
        let changed = restaurant("B")
        changed["rating"] = "high"
        _ = try await development.publicCloudDatabase.save(changed)
        let error = await cloudError { _ = try await development.deploySchema() }
        #expect(error?.code == .invalidArguments)
        #expect(error?.message.contains("'Restaurant.rating' would change type from DOUBLE to STRING") == true)
        #expect(try await container("alice", .production).schema() == production)
    }

    @Test func queriesNeedCloudKitsIndexes() async throws {
        let alice = container()
        let db = alice.publicCloudDatabase
        for name in ["Cafe Deadend", "Homei", "Teakha"] {
            _ = try await db.save(restaurant(name, type: name == "Homei" ? "Cafe" : "Tea"))
        }
        func message(_ format: String = "TRUEPREDICATE", sort: String? = nil) async -> String? {
            let error = await cloudError { _ = try await query(db, format, sort: sort) }
            #expect(error == nil || error?.code == .invalidArguments)
            return error?.message
        }
        #expect(await message() == "Type is not marked indexable: Restaurant")
        try await alice.updateSchema { try $0.setIndex(.queryable, true, type: "Restaurant", field: "recordName") }
        #expect(await message() == nil)
        #expect(await message(sort: "creationDate") == "Field 'createdTimestamp' is not marked sortable")
        #expect(await message("type == 'Tea'") == "Field 'type' is not marked queryable")
        #expect(await message(sort: "name") == "Field 'name' is not marked sortable")
        #expect(await message("self CONTAINS 'homei'") == "Field 'self' is not marked searchable: no field of type 'Restaurant' is SEARCHABLE")

        try await alice.updateSchema {
            try $0.setIndex(.sortable, true, type: "Restaurant", field: "createdTimestamp")
            try $0.setIndex(.queryable, true, type: "Restaurant", field: "type")
            try $0.setIndex(.sortable, true, type: "Restaurant", field: "name")
            try $0.setIndex(.searchable, true, type: "Restaurant", field: "name")
        }
        #expect(try await query(db, sort: "creationDate").map { $0["name"] as? String } == ["Teakha", "Homei", "Cafe Deadend"])
        #expect(try await query(db, "type == 'Tea'", sort: "name", ascending: true).map { $0["name"] as? String } == ["Cafe Deadend", "Teakha"])
        #expect(try await query(db, "self CONTAINS 'homei'").count == 1)
    }

    @Test func rolesWithTwoUsers() async throws {
        let alice = container("alice"), bob = container("bob"), nobody = container(nil)
        let saved = try await alice.publicCloudDatabase.save(restaurant("Alice's"))
        let id = saved.recordID

        // _world reads: bob and a user with no account see alice's record.
        #expect(try await bob.publicCloudDatabase.record(for: id)["name"] as? String == "Alice's")
        #expect(try await nobody.publicCloudDatabase.record(for: id)["name"] as? String == "Alice's")
        // _creator writes: bob cannot change or delete it; alice can change it.
        let bobsCopy = try await bob.publicCloudDatabase.record(for: id)
        bobsCopy["name"] = "Bob's now"
        let denied = await cloudError { _ = try await bob.publicCloudDatabase.save(bobsCopy) }
        #expect(denied?.code == .permissionFailure)
        #expect(denied?.message == "Permission Failure: WRITE operation not permitted on type 'Restaurant' for user 'bob'")
        #expect(await cloudError { _ = try await bob.publicCloudDatabase.deleteRecord(withID: id) }?.code == .permissionFailure)
        saved["name"] = "Alice's, renamed"
        _ = try await alice.publicCloudDatabase.save(saved)
        // _icloud creates: bob can add his own; no account cannot.
        _ = try await bob.publicCloudDatabase.save(restaurant("Bob's"))
        #expect(await cloudError { _ = try await nobody.publicCloudDatabase.save(restaurant("Anon")) }?.code == .notAuthenticated)

        // A custom role lets bob moderate.
        try await alice.updateSchema {
            try $0.createRole("Moderator")
            try $0.grant(.write, to: "Moderator", on: "Restaurant")
            try $0.assign(role: "Moderator", to: "bob")
        }
        let again = try await bob.publicCloudDatabase.record(for: id)
        again["name"] = "Moderated"
        _ = try await bob.publicCloudDatabase.save(again)
        _ = try await bob.publicCloudDatabase.deleteRecord(withID: id)

        // Revoking _icloud CREATE stops both users.
        try await alice.updateSchema { try $0.revoke(.create, from: SecurityRole.icloud, on: "Restaurant") }
        for user in [alice, bob] {
            let error = await cloudError { _ = try await user.publicCloudDatabase.save(restaurant("More")) }
            #expect(error?.code == .permissionFailure)
            #expect(error?.message.hasPrefix("Permission Failure: CREATE operation not permitted on type 'Restaurant'") == true)
        }
        // A type with no grants cannot be used in the public database at all.
        try await alice.updateSchema { schema in schema.recordTypes["Restaurant"]?.grants = [:] }
        let closed = await cloudError { _ = try await query(bob.publicCloudDatabase) }
        #expect(closed?.code == .permissionFailure)
        #expect(closed?.message.contains("type 'Restaurant' grants no permissions") == true)
    }

    @Test func privateDatabasesAreIsolated() async throws {
        let alice = container("alice"), bob = container("bob")
        let diary = Record(recordType: "Diary", recordID: Record.ID(recordName: "shared-name"))
        diary["text"] = "alice only"
        _ = try await alice.privateCloudDatabase.save(diary)

        let fetch = await cloudError { _ = try await bob.privateCloudDatabase.record(for: diary.recordID) }
        #expect(fetch?.code == .unknownItem)
        let all = Query(recordType: "Diary", predicate: Predicate(value: true))
        try await alice.updateSchema { try $0.setIndex(.queryable, true, type: "Diary", field: "recordName") }
        #expect(try await bob.privateCloudDatabase.records(matching: all).matchResults.isEmpty)
        #expect(try await alice.privateCloudDatabase.records(matching: all).matchResults.count == 1)
        // Bob saving the same name writes his own record, and alice's stays as it was.
        let bobs = Record(recordType: "Diary", recordID: Record.ID(recordName: "shared-name"))
        bobs["text"] = "bob's"
        _ = try await bob.privateCloudDatabase.save(bobs)
        #expect(try await alice.privateCloudDatabase.record(for: diary.recordID)["text"] as? String == "alice only")
        #expect(await cloudError { _ = try await bob.privateCloudDatabase.deleteRecord(withID: Record.ID(recordName: "nope")) }?.code == .unknownItem)
        #expect(await cloudError { _ = try await container(nil).privateCloudDatabase.record(for: diary.recordID) }?.code == .notAuthenticated)
    }
}
