import ArgumentParser
import LocalCloud

struct RolesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roles",
        abstract: "Show security roles, grant or revoke permissions, give users roles.",
        discussion: """
            Built-in roles: _world (everyone), _icloud (any signed-in user), _creator (the record's creator).
            Examples:
              localcloud roles grant write --to _icloud --on Restaurant
              localcloud roles create Moderator
              localcloud roles grant Moderator --member bob
            """,
        subcommands: [Show.self, Grant.self, Revoke.self, Create.self, Delete.self]
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show each type's grants, the custom roles and their members.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let schema = try await Session(global).schema()
            if global.json {
                try Output.json(RolesReport(schema))
                return
            }
            var rows: [[String]] = []
            for type in schema.sortedRecordTypes {
                if type.grants.isEmpty { rows.append([type.name, "(none)", "unusable in the public database"]) }
                for role in type.grants.keys.sorted() {
                    rows.append([type.name, role, type.grants[role]?.description ?? ""])
                }
            }
            Output.table(["TYPE", "ROLE", "PERMISSIONS"], rows)
            Output.line()
            Output.line("Custom roles: " + (schema.roles.isEmpty ? "(none)" : schema.roles.sorted().joined(separator: ", ")))
            for user in schema.members.keys.sorted() {
                Output.line("  \(user): \(schema.members[user, default: []].sorted().joined(separator: ", "))")
            }
        }
    }

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Grant permissions to a role on a type, or a custom role to a user.",
            discussion: "Either PERMISSIONS --to ROLE --on TYPE, or ROLE --member USER."
        )
        @OptionGroup var global: GlobalOptions
        @OptionGroup var change: RoleChange

        func run() async throws { try await change.apply(grant: true, global) }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke permissions from a role on a type, or a custom role from a user.",
            discussion: "Either PERMISSIONS --to ROLE --on TYPE, or ROLE --member USER."
        )
        @OptionGroup var global: GlobalOptions
        @OptionGroup var change: RoleChange

        func run() async throws { try await change.apply(grant: false, global) }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a custom role.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The role name.", valueName: "role")) var role: String

        func run() async throws {
            let role = role
            let schema = try await Session(global).updateSchema { try $0.createRole(role) }
            Output.line("Created role \(role); schema version \(schema.version)")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a custom role, its grants and its members.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The role name.", valueName: "role")) var role: String

        func run() async throws {
            let role = role
            let schema = try await Session(global).updateSchema { try $0.deleteRole(role) }
            Output.line("Deleted role \(role); schema version \(schema.version)")
        }
    }
}

struct RoleChange: ParsableArguments {
    @Argument(help: ArgumentHelp("Permissions (read,create,write), or with --member a custom role.", valueName: "permissions|role"))
    var what: String
    @Option(help: ArgumentHelp("The role that gets the permissions.", valueName: "role")) var to: String?
    @Option(help: ArgumentHelp("The record type.", valueName: "type")) var on: String?
    @Option(help: ArgumentHelp("Give (or take) the custom role to this user.", valueName: "user"))
    var member: String?

    func validate() throws {
        if member != nil {
            guard to == nil, on == nil else { throw ValidationError("Use either ROLE --member USER or PERMISSIONS --to ROLE --on TYPE") }
        } else {
            guard to != nil, on != nil else { throw ValidationError("Missing --to ROLE and --on TYPE (or --member USER)") }
            _ = try permissions()
        }
    }

    func permissions() throws -> Permissions {
        var result: Permissions = []
        for word in what.split(separator: ",") {
            guard let permission = Permissions(keyword: word.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("Unknown permission '\(word)': use read, create and write, comma-separated")
            }
            result.insert(permission)
        }
        return result
    }

    func apply(grant: Bool, _ global: GlobalOptions) async throws {
        let session = try await Session(global)
        if let member {
            _ = try await session.updateSchema { grant ? try $0.assign(role: what, to: member) : try $0.unassign(role: what, from: member) }
            Output.line(grant ? "Gave \(member) the role \(what)" : "Took the role \(what) from \(member)")
            return
        }
        guard let to, let on else { return }
        let permissions = try permissions()
        let schema = try await session.updateSchema {
            grant ? try $0.grant(permissions, to: to, on: on) : try $0.revoke(permissions, from: to, on: on)
        }
        let now = schema.recordTypes[on]?.grants[to] ?? []
        Output.line("\(to) on \(on): \(now.isEmpty ? "no permissions" : now.description); schema version \(schema.version)")
    }
}

import Foundation

/// `roles show --json`: the custom roles, their members, and each type's grants (role → permissions).
struct RolesReport: Encodable {
    var roles: [String]
    var members: [String: [String]]
    var grants: [String: [String: String]]

    init(_ schema: Schema) {
        let object = SchemaJSON(schema)
        roles = object.roles
        members = object.members
        grants = Dictionary(uniqueKeysWithValues: schema.sortedRecordTypes.map { type in
            (type.name, type.grants.mapValues(\.description))
        })
    }
}
