import ArgumentParser
import LocalCloud

struct IndexCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Add or remove a queryable, sortable or searchable index.",
        discussion: """
            FIELD is a field of TYPE or a system field: recordName, createdTimestamp, modifiedTimestamp, \
            createdBy (createdUserRecordName) or modifiedBy. Adding an index builds it for existing records.
            Example: localcloud index add Restaurant recordName queryable
            """,
        subcommands: [Add.self, Remove.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an index to a field.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var target: IndexTarget

        func run() async throws { try await target.apply(true, global) }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an index from a field.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var target: IndexTarget

        func run() async throws { try await target.apply(false, global) }
    }
}

struct IndexTarget: ParsableArguments {
    @Argument(help: ArgumentHelp("The record type.", valueName: "type")) var type: String
    @Argument(help: ArgumentHelp("The field.", valueName: "field")) var field: String
    @Argument(help: ArgumentHelp("queryable, sortable or searchable.", valueName: "kind")) var kind: IndexKindArgument

    func apply(_ on: Bool, _ global: GlobalOptions) async throws {
        let schema = try await Session(global).updateSchema { try $0.setIndex(kind.kind, on, type: type, field: field) }
        if global.json {
            try Output.json(IndexReport(type: type, field: field, index: kind.rawValue, present: on, version: schema.version))
        } else {
            Output.line("\(on ? "Added" : "Removed") \(kind.rawValue) index on \(type).\(field); schema version \(schema.version)")
        }
    }
}

enum IndexKindArgument: String, ExpressibleByArgument, CaseIterable {
    case queryable, sortable, searchable

    var kind: IndexKind {
        switch self {
        case .queryable: .queryable
        case .sortable: .sortable
        case .searchable: .searchable
        }
    }
}

/// `index add|remove --json`.
struct IndexReport: Encodable {
    var type: String
    var field: String
    var index: String
    var present: Bool
    var version: Int
}
