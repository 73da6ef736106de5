import ArgumentParser
import LocalCloud

struct ZonesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "zones",
        abstract: "List, create or delete record zones (custom zones live in the user's private database).",
        subcommands: [List.self, Create.self, Delete.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the zones of a database.")
        @OptionGroup var global: GlobalOptions

        func run() async throws { try await Session(global).listZones(database: global.databaseName() ?? .private) }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a zone in the user's private database.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The zone name.", valueName: "zone")) var name: String

        func run() async throws { try await Session(global).createZone(name) }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a zone and all its records from the user's private database.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The zone name.", valueName: "zone")) var name: String

        func run() async throws { try await Session(global).deleteZone(name) }
    }
}
