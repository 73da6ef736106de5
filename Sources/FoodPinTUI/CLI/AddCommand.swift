import ArgumentParser

/// `foodpin add`: saves a restaurant to the public database with the form's validation and image pipeline.
struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a restaurant to the public database."
    )

    @OptionGroup var options: GlobalOptions

    @Option(help: "The restaurant's name.")
    var name: String

    @Option(help: "The kind of food, e.g. Thai.")
    var type: String

    @Option(help: "Where it is.")
    var location: String

    @Option(help: "A phone number: digits, spaces and +-().")
    var phone: String?

    @Option(help: "A longer description.")
    var description: String?

    @Option(help: ArgumentHelp("A photo; scaled to at most 1024 pixels wide.", valueName: "path"))
    var image: String?

    mutating func run() throws {
        printError("foodpin add: not implemented")
        throw ExitCode(1)
    }
}
