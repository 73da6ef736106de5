import ArgumentParser
import FoodPinCore

/// `foodpin`: with no subcommand, opens the Discover screen.
///
/// The screen runs on the main thread inside this synchronous `run()`: ncurses
/// must stay on one thread, and background work reaches it through the runtime's sink.
@main
struct FoodpinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "foodpin",
        abstract: "Discover and share restaurants, in the terminal.",
        version: "0.1.0",
        subcommands: [ListCommand.self, AddCommand.self]
    )

    @OptionGroup var options: GlobalOptions

    /// Runs the built-in runtime demo instead of the Discover screen (for development and tests).
    @Flag(help: .hidden)
    var demo = false

    mutating func run() throws {
        let colorMode = resolveColorMode(options.color)
        let code: Int32
        if demo {
            code = runInteractive(app: DemoApp(colorMode: colorMode), colorMode: colorMode)
        } else {
            // The Discover screen lands here once FoodPinCore's DiscoverApp is ready.
            code = runInteractive(app: DemoApp(colorMode: colorMode), colorMode: colorMode)
        }
        if code != 0 { throw ExitCode(code) }
    }
}
