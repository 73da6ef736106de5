import ArgumentParser
import Foundation
import LocalCloud

/// The options every subcommand takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The data directory (default: LOCALCLOUD_HOME, $XDG_DATA_HOME/localcloud or ~/.local/share/localcloud).", valueName: "path"))
    var dataDir: String?

    @Option(name: .long, help: ArgumentHelp("The container identifier (default: LOCALCLOUD_CONTAINER or iCloud.FoodPin).", valueName: "id"))
    var container: String?

    @Option(name: .long, help: "development or production.")
    var environment: EnvironmentName = .development

    @Option(name: .long, help: ArgumentHelp("Act as this user (default: LOCALCLOUD_USER or the login name; \"\" for no account).", valueName: "name"))
    var user: String?

    @Flag(name: .long, help: "Machine-readable JSON output.")
    var json = false

    enum EnvironmentName: String, ExpressibleByArgument, CaseIterable {
        case development
        case production
    }
}

extension GlobalOptions {
    /// Options that take a value, and flags, as they may appear before the subcommand name.
    static let valued: Set<String> = ["--data-dir", "--container", "--environment", "--user"]
    static let flags: Set<String> = ["--json"]

    /// ArgumentParser only accepts a leaf's options after the subcommand names, so global
    /// options written first (`localcloud --data-dir d schema show`) are moved after them.
    static func movedAfterSubcommand(_ arguments: [String]) -> [String] {
        var moved: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if flags.contains(argument) || (valued.contains(name) && argument.contains("=")) {
                moved.append(argument)
                index += 1
            } else if valued.contains(argument) && index + 1 < arguments.count {
                moved += [argument, arguments[index + 1]]
                index += 2
            } else {
                break
            }
        }
        guard !moved.isEmpty else { return arguments }
        var rest = Array(arguments[index...])
        let end = rest.firstIndex(of: "--") ?? rest.endIndex
        rest.insert(contentsOf: moved, at: end)
        return rest
    }
}
