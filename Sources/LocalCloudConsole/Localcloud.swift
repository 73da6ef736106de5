import ArgumentParser
import Foundation
import LocalCloud
import LocalCloudCLI

/// The root command. Every subcommand takes the global options (`--data-dir`, `--container`,
/// `--environment`, `--user`, `--json`), before or after its name.
struct Localcloud: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "localcloud",
        abstract: "Inspect and shape a LocalCloud container, like the CloudKit Console.",
        discussion: """
            The data directory is --data-dir, else LOCALCLOUD_HOME, else $XDG_DATA_HOME/localcloud, \
            else ~/.local/share/localcloud. The container is --container, else LOCALCLOUD_CONTAINER, else iCloud.FoodPin.
            Errors print one line on stderr with the CloudError code and exit non-zero.

            Global options, before or after the subcommand: --data-dir <path>, --container <id>, \
            --environment development|production, --user <name> ("" for no account), --json.
            """,
        version: "0.1.0",
        subcommands: [
            SchemaCommand.self, IndexCommand.self, RolesCommand.self, RecordsCommand.self,
            ZonesCommand.self, ResetCommand.self, DeployCommand.self, StatusCommand.self, GCCommand.self,
            TokensCommand.self, ServeCommand.self,
            UsersCommand.self,
            KeysCommand.self,
            AdminsCommand.self,
        ]
    )

    /// Declared here as well as on each subcommand, so the options may come before its name.
    @OptionGroup var global: GlobalOptions

    /// Parses, runs, and turns any error into one line on stderr and a non-zero exit.
    static func runMain() async {
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exit(withError: error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var syncCommand = command
                try syncCommand.run()
            }
        } catch let error as CloudError {
            Output.error(FailureLine.message(for: error))
            Foundation.exit(1)
        } catch let error as ConsoleFailure {
            Output.error(error.message)
            Foundation.exit(error.exitCode)
        } catch {
            // ArgumentParser's own errors print its way; one it would print blank says what it is.
            guard !(error is ExitCode), message(for: error).allSatisfy(\.isWhitespace) else { exit(withError: error) }
            Output.error(FailureLine.message(for: error))
            Foundation.exit(1)
        }
    }
}

/// A console-level failure that is not a CloudError (a file that cannot be read, a refused confirmation).
struct ConsoleFailure: Error {
    var message: String
    var exitCode: Int32 = 1
}
