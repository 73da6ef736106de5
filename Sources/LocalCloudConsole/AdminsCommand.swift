import ArgumentParser
import Foundation
import LocalCloud
import LocalCloudPostgres
import LocalCloudServerPostgres
import LocalCloudServer

/// `localcloud admins`: the people who may sign in to the web console (`/console`). They are not
/// app users: they belong to the server, in the data directory's `console.sqlite` or in PostgreSQL.
struct AdminsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admins",
        abstract: "Add, list or remove the administrators who sign in to the web console at /console.",
        discussion: """
            Passwords are stored as bcrypt hashes. Removing an administrator ends its console sessions.
            Examples:
              localcloud admins add root                       # asks for the password twice
              printf '%s' "$PASSWORD" | localcloud admins add root --password-stdin
              localcloud admins list
              localcloud admins remove root
            """,
        subcommands: [Add.self, List.self, Remove.self]
    )

    /// The console store the global options name: PostgreSQL with a database URL, else the data directory's.
    static func store(_ global: GlobalOptions) async throws -> any ConsoleStore {
        if let url = try global.databaseURL() {
            try await GlobalOptions.checkReachable(url)
            return PostgresConsoleStore(url: url)
        }
        return SQLiteConsoleStore(dataDirectory: global.cloud.configuration().dataDirectory)
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an administrator; the password is asked for on the terminal (without echo) or read from stdin.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The administrator's name (letters, digits, '.', '-', '_', '@').", valueName: "name")) var name: String
        @Flag(help: "Read the password from stdin (one trailing newline is dropped).") var passwordStdin = false

        func run() async throws {
            try SQLiteIdentityStore.validate(userName: name)
            let password = try passwordStdin ? PasswordInput.fromStdin() : PasswordInput.fromTerminal(for: name)
            let admin = try await AdminsCommand.store(global).addAdmin(name, password: password)
            global.json ? try Output.json(["added": admin.name]) : Output.line("Added console administrator \(admin.name)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the administrators: name, created.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let admins = try await AdminsCommand.store(global).admins()
            if global.json {
                try Output.json(admins.map { ["name": $0.name, "created": IdentityOutput.date($0.created)] })
                return
            }
            Output.table(["NAME", "CREATED"], admins.map { [$0.name, IdentityOutput.date($0.created)] })
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an administrator and end its console sessions.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The administrator's name.", valueName: "name")) var name: String

        func run() async throws {
            guard try await AdminsCommand.store(global).deleteAdmin(name) else {
                throw CloudError(.unknownItem, "No console administrator '\(name)'")
            }
            global.json ? try Output.json(["removed": name]) : Output.line("Removed console administrator \(name)")
        }
    }
}
