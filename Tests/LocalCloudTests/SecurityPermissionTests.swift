import Foundation
import Testing
@testable import LocalCloud

/// The security-role rules, each checked with two users: alice (who created the record) and bob.
@Suite struct SecurityPermissionTests {
    let schema: Schema

    init() throws {
        var schema = try Schema().applying(recordType: "Restaurant", fields: ["name": .string("a")])
        try schema.createRole("Moderator")
        schema = try schema.applying(recordType: "Secret", fields: ["x": .string("a")])
        schema.recordTypes["Secret"]?.grants = [:]
        self.schema = schema
    }

    func error(_ action: RecordAction, _ user: String?, creator: String? = "alice", in schema: Schema? = nil,
               type: String = "Restaurant") -> CloudError? {
        do {
            try (schema ?? self.schema).checkPermission(action, recordType: type, user: user, creator: creator)
            return nil
        } catch {
            return error as? CloudError
        }
    }

    @Test func defaultsLetEveryoneReadSignedInUsersCreateAndCreatorsWrite() {
        #expect(error(.read, nil) == nil, "_world reads, even without an account")
        #expect(error(.read, "bob") == nil)
        #expect(error(.create, "alice", creator: nil) == nil, "_icloud creates")
        #expect(error(.create, "bob", creator: nil) == nil)
        #expect(error(.write, "alice") == nil, "_creator writes its own record")
        let bob = error(.write, "bob")
        #expect(bob?.code == .permissionFailure)
        #expect(bob?.message == "Permission Failure: WRITE operation not permitted on type 'Restaurant' for user 'bob'")
    }

    @Test func writingWithNoAccountIsNotAuthenticated() {
        #expect(error(.create, nil, creator: nil)?.code == .notAuthenticated)
        #expect(error(.write, nil)?.code == .notAuthenticated)
        #expect(error(.create, nil, creator: nil)?.message.contains("CREATE on type 'Restaurant'") == true)
    }

    @Test func revokingCreateFromICloudStopsBothUsers() throws {
        var closed = schema
        try closed.revoke(.create, from: SecurityRole.icloud, on: "Restaurant")
        for user in ["alice", "bob"] {
            let failure = error(.create, user, creator: nil, in: closed)
            #expect(failure?.code == .permissionFailure)
            #expect(failure?.message == "Permission Failure: CREATE operation not permitted on type 'Restaurant' for user '\(user)'")
        }
        // Creator WRITE never lets anyone create.
        try closed.grant(.create, to: SecurityRole.creator, on: "Restaurant")
        #expect(error(.create, "alice", creator: nil, in: closed)?.code == .permissionFailure)
    }

    @Test func grantingWriteToICloudLetsAnySignedInUserWrite() throws {
        var open = schema
        try open.grant(.write, to: SecurityRole.icloud, on: "Restaurant")
        #expect(error(.write, "bob", in: open) == nil)
        #expect(error(.write, "alice", in: open) == nil)
        #expect(error(.write, nil, in: open)?.code == .notAuthenticated)
    }

    @Test func readCanBeLimitedToSignedInUsers() throws {
        var members = schema
        try members.revoke(.read, from: SecurityRole.world, on: "Restaurant")
        try members.grant(.read, to: SecurityRole.icloud, on: "Restaurant")
        #expect(error(.read, nil, in: members)?.code == .permissionFailure)
        #expect(error(.read, nil, in: members)?.message.contains("READ operation not permitted on type 'Restaurant'") == true)
        #expect(error(.read, "bob", in: members) == nil)
    }

    @Test func customRolesApplyOnlyToTheirMembers() throws {
        var moderated = schema
        try moderated.grant(.write, to: "Moderator", on: "Restaurant")
        #expect(error(.write, "bob", in: moderated)?.code == .permissionFailure)
        try moderated.assign(role: "Moderator", to: "bob")
        #expect(error(.write, "bob", in: moderated) == nil, "bob moderates alice's record")
        #expect(error(.write, "carol", in: moderated)?.code == .permissionFailure)
        try moderated.unassign(role: "Moderator", from: "bob")
        #expect(error(.write, "bob", in: moderated)?.code == .permissionFailure)
        #expect(throws: CloudError.self) { try moderated.assign(role: "_icloud", to: "bob") }
        #expect(throws: CloudError.self) { try moderated.grant(.read, to: "Nobody", on: "Restaurant") }
    }

    @Test func typeWithNoGrantsCannotBeUsedInThePublicDatabase() {
        for (action, user) in [(RecordAction.read, "alice"), (.create, "alice"), (.write, "bob"), (.read, "bob")] {
            let failure = error(action, user, type: "Secret")
            #expect(failure?.code == .permissionFailure)
            #expect(failure?.message.contains("type 'Secret' grants no permissions") == true)
        }
    }

    @Test func privateDatabaseBelongsToItsOwnerAlone() throws {
        try Schema.checkPrivateAccess(user: "alice", owner: "alice")
        #expect(throws: CloudError.self) { try Schema.checkPrivateAccess(user: "bob", owner: "alice") }
        let noAccount = try #require(throws: CloudError.self) { try Schema.checkPrivateAccess(user: nil, owner: "alice") }
        #expect(noAccount.code == .notAuthenticated)
    }

    @Test func deletingARoleDropsItsGrantsAndMembers() throws {
        var schema = schema
        try schema.grant(.write, to: "Moderator", on: "Restaurant")
        try schema.assign(role: "Moderator", to: "bob")
        try schema.deleteRole("Moderator")
        #expect(schema.recordTypes["Restaurant"]?.grants["Moderator"] == nil)
        #expect(schema.members.isEmpty)
        #expect(error(.write, "bob", in: schema)?.code == .permissionFailure)
    }

    @Test func theDeveloperMayDoEverythingInThePublicDatabase() throws {
        let developer = Schema.developerUserName
        #expect(error(.write, developer) == nil, "writes records other users created")
        #expect(error(.create, developer, creator: nil, in: schema, type: "Secret") == nil, "even where no role has a grant")
        var closed = schema
        try closed.revoke(.create, from: SecurityRole.icloud, on: "Restaurant")
        #expect(error(.create, developer, creator: nil, in: closed) == nil)
        #expect(error(.create, "bob", creator: nil, in: closed)?.code == .permissionFailure, "others still follow the roles")
    }
}
