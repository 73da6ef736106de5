import ArgumentParser

/// `foodpin list [--json] [--limit N]`: restaurants newest first, through the screen's query path.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print restaurants, newest first."
    )

    @OptionGroup var options: GlobalOptions

    @Flag(help: "Print a JSON array instead of one line per restaurant.")
    var json = false

    @Option(help: ArgumentHelp("Print at most this many restaurants.", valueName: "n"))
    var limit: Int?

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more.") }
    }

    mutating func run() throws {
        printError("foodpin list: not implemented")
        throw ExitCode(1)
    }
}
