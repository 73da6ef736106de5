import ArgumentParser
import LocalCloud

struct DeployCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deploy",
        abstract: "Deploy the development schema (types, fields, indexes, roles) to production.",
        discussion: "Data is not copied. Removing a type or field, or changing a field's type, is refused as destructive."
    )
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let (before, after) = try await Session(global).deploy()
        if global.json {
            try Output.json(DeployReport(
                productionVersion: after.version, changed: after.version != before.version,
                recordTypes: after.sortedRecordTypes.map(\.name)))
        } else if after.version == before.version {
            Output.line("Production already matches development (schema version \(after.version))")
        } else {
            let added = after.recordTypes.keys.filter { before.recordTypes[$0] == nil }.sorted()
            Output.line("Deployed to production: schema version \(after.version)"
                        + (added.isEmpty ? "" : "; new types: " + added.joined(separator: ", ")))
        }
    }
}

/// `deploy --json`.
struct DeployReport: Encodable {
    var productionVersion: Int
    var changed: Bool
    var recordTypes: [String]
}
