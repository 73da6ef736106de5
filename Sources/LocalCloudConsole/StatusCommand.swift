import ArgumentParser
import LocalCloud

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the data directory, record counts, sizes and schema version."
    )
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await Session(global).status()
    }
}
