import ArgumentParser
import Foundation
import LocalCloud

struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Show, import or export the record types, fields, indexes and roles.",
        subcommands: [Show.self, Import.self, Export.self]
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the schema (text schema, or JSON with --json).")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let schema = try await Session(global).schema()
            if global.json {
                try Output.json(SchemaJSON(schema))
            } else {
                Output.line("-- \(global.cloud.configuration().environment.rawValue) schema, version \(schema.version)")
                print(schema.ckdb, terminator: "")
            }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import a .ckdb text schema (cktool's language).",
            discussion: """
                Types, fields, indexes, grants and roles in the file are added to the schema; \
                a field whose type differs from the existing one is refused. In production, import \
                is refused: deploy from development instead.
                """
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The .ckdb file.", valueName: "file")) var file: String

        func run() async throws {
            let text: String
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw ConsoleFailure(message: "cannot read \(file): \(error.localizedDescription)")
            }
            let imported = try Schema(ckdb: text)
            let schema = try await Session(global).importSchema(imported)
            if global.json {
                try Output.json(SchemaVersionReport(version: schema.version, recordTypes: schema.sortedRecordTypes.map(\.name)))
            } else {
                Output.line("Imported \(imported.recordTypes.count) record type(s) from \(file); schema version \(schema.version)")
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the schema as a .ckdb text schema, or write it to a file.")
        @OptionGroup var global: GlobalOptions
        @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of stdout.", valueName: "file")) var output: String?

        func run() async throws {
            let text = try await Session(global).schema().ckdb
            if let output {
                do {
                    try text.write(toFile: output, atomically: true, encoding: .utf8)
                } catch {
                    throw ConsoleFailure(message: "cannot write \(output): \(error.localizedDescription)")
                }
            } else {
                print(text, terminator: "")
            }
        }
    }
}

/// `schema show --json`: the schema's version, custom roles and their members, and each record
/// type's fields (name, type, indexes) and grants (role → permission keywords).
struct SchemaJSON: Encodable {
    struct RecordType: Encodable {
        var name: String
        var fields: [Field]
        var grants: [String: [String]]
    }

    struct Field: Encodable {
        var name: String
        var type: String
        var indexes: [String]
    }

    var version: Int
    var roles: [String]
    var members: [String: [String]]
    var recordTypes: [RecordType]

    init(_ schema: Schema) {
        version = schema.version
        roles = schema.roles.sorted()
        members = schema.members.mapValues { $0.sorted() }
        recordTypes = schema.sortedRecordTypes.map { type in
            RecordType(
                name: type.name,
                fields: type.fields.map { Field(name: $0.name, type: $0.type.description, indexes: $0.indexes.map(\.rawValue)) },
                grants: type.grants.mapValues { permissions in
                    Permissions.keywords.filter { permissions.contains($0.0) }.map(\.1)
                })
        }
    }
}

/// `schema import --json`.
struct SchemaVersionReport: Encodable {
    var version: Int
    var recordTypes: [String]
}
