import ArgumentParser
import Foundation
import LocalCloud

struct RecordsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "records",
        abstract: "Query, fetch, create, delete, export and import records.",
        subcommands: [Query.self, Get.self, Create.self, Delete.self, Export.self, Import.self]
    )

    struct Query: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Query records of a type.",
            discussion: """
                Example: localcloud records query Restaurant --filter "type == 'Thai'" --sort creationDate --desc --limit 10
                The filter is a predicate format as CKQuery accepts it; indexes are checked as CloudKit does.
                """
        )
        @OptionGroup var global: GlobalOptions
        @OptionGroup var zone: ZoneOption
        @Argument(help: ArgumentHelp("The record type.", valueName: "type")) var type: String
        @Option(help: ArgumentHelp("A predicate, e.g. \"name BEGINSWITH 'Ca'\".", valueName: "predicate")) var filter: String?
        @Option(help: ArgumentHelp("Sort by this field or creationDate/modificationDate.", valueName: "field")) var sort: String?
        @Flag(help: "Sort descending.") var desc = false
        @Option(help: "At most this many records (all pages when not given).") var limit: Int?
        @Option(name: .customLong("desired-keys"), help: ArgumentHelp("Only these fields, comma-separated.", valueName: "a,b"))
        var desiredKeys: String?

        func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
            if desc && sort == nil { throw ValidationError("--desc needs --sort") }
        }

        func run() async throws {
            let keys = desiredKeys.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            try await Session(global).queryRecords(type: type, filter: filter, sort: sort, descending: desc,
                                                   limit: limit, desiredKeys: keys, place: try RecordPlace(global: global, zone: zone, default: .public))
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Fetch one record by name.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var zone: ZoneOption
        @Argument(help: ArgumentHelp("The record name.", valueName: "name")) var name: String

        func run() async throws {
            try await Session(global).getRecord(name: name, place: try RecordPlace(global: global, zone: zone, default: .public))
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete one record by name.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var zone: ZoneOption
        @Argument(help: ArgumentHelp("The record name.", valueName: "name")) var name: String

        func run() async throws {
            try await Session(global).deleteRecord(name: name, place: try RecordPlace(global: global, zone: zone, default: .public))
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a record from field=value pairs.",
            discussion: """
                Values take the field's schema type when the field exists; otherwise 42 is INT64, 4.5 is DOUBLE, \
                true/false are INT64 (as CloudKit stores Bool), an ISO 8601 date is TIMESTAMP, and anything else is STRING. \
                Force a type with field:TYPE=value (STRING, INT64, DOUBLE, TIMESTAMP, LOCATION as lat,lon, REFERENCE as a record name).
                Example: localcloud records create Restaurant name="Cafe Deadend" type=Cafe location="Hong Kong" --asset image=photo.jpg
                """
        )
        @OptionGroup var global: GlobalOptions
        @OptionGroup var zone: ZoneOption
        @Argument(help: ArgumentHelp("The record type.", valueName: "type")) var type: String
        @Argument(help: ArgumentHelp("Fields as field=value.", valueName: "field=value")) var fields: [String] = []
        @Option(help: ArgumentHelp("Attach a file as an Asset field (repeatable).", valueName: "field=path")) var asset: [String] = []
        @Option(help: ArgumentHelp("The record name (default: a new UUID).", valueName: "name")) var name: String?

        func run() async throws {
            try await Session(global).createRecord(type: type, name: name, assignments: fields, assets: asset, place: try RecordPlace(global: global, zone: zone, default: .public))
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Export records to a JSON file, with their assets copied beside it.",
            discussion: """
                Writes FILE (JSON: every record's name, type, zone, creator, dates and typed fields) and \
                FILE.assets/ holding each asset once, named by its SHA-256; asset fields name their file relative to FILE.
                """
        )
        @OptionGroup var global: GlobalOptions
        @OptionGroup var zone: ZoneOption
        @Argument(help: ArgumentHelp("The JSON file to write.", valueName: "file")) var file: String
        @Option(help: ArgumentHelp("Only these record types, comma-separated (default: every type in the schema).", valueName: "types"))
        var types: String?

        func run() async throws {
            let only = types.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            try await Session(global).exportRecords(to: file, types: only, place: try RecordPlace(global: global, zone: zone, default: .public))
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import records from a JSON file written by export (assets from FILE.assets/).",
            discussion: "Records keep their names; an existing record with the same name is overwritten. Creator and dates become the importing user's and now."
        )
        @OptionGroup var global: GlobalOptions
        @OptionGroup var zone: ZoneOption
        @Argument(help: ArgumentHelp("The JSON file to read.", valueName: "file")) var file: String

        func run() async throws {
            try await Session(global).importRecords(from: file, place: try RecordPlace(global: global, zone: zone, default: .public))
        }
    }
}

/// `--zone`, for the records commands.
struct ZoneOption: ParsableArguments {
    @Option(name: .customLong("zone"), help: ArgumentHelp("The zone (private database only; default _defaultZone).", valueName: "zone"))
    var name: String?
}

/// Which database and zone a records command works in: `--database public|private` (the same
/// option that takes a PostgreSQL URL; see ``GlobalOptions``) and `--zone`.
struct RecordPlace {
    var database: DatabaseName
    var zone: String?

    enum DatabaseName: String, ExpressibleByArgument, CaseIterable {
        case `public`, `private`
    }

    init(global: GlobalOptions, zone: ZoneOption, default fallback: DatabaseName) throws {
        database = try global.databaseName() ?? fallback
        self.zone = zone.name
        if self.zone != nil && database == .public {
            throw ValidationError("--zone needs --database private: custom zones live in the private database")
        }
    }
}
