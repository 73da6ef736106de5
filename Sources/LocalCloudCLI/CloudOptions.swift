import ArgumentParser
import Foundation
import LocalCloud

/// The options `foodpin` and `localcloud` share: which container, where, and as whom.
///
/// ```swift
/// struct Status: ParsableCommand {
///     @OptionGroup var cloud: CloudOptions
///     func run() { let container = Container(configuration: cloud.configuration()) }
/// }
/// ```
///
/// Declare it with `@OptionGroup`, under the same property name, on the root command and on
/// every subcommand that runs. ArgumentParser then reads the options before or after the
/// subcommand's name (`localcloud --user bob status` and `localcloud status --user bob`), with
/// no rewriting of the arguments.
public struct CloudOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: ArgumentHelp(
        "The data directory (default: LOCALCLOUD_HOME, $XDG_DATA_HOME/localcloud or ~/.local/share/localcloud).",
        valueName: "path"))
    public var dataDirectory: String?

    @Option(help: ArgumentHelp("The container identifier (default: LOCALCLOUD_CONTAINER or iCloud.FoodPin).", valueName: "id"))
    public var container: String?

    @Option(help: ArgumentHelp("Act as this user (default: LOCALCLOUD_USER or the login name; \"\" for no account).", valueName: "name"))
    public var user: String?

    @Option(help: "development or production (default: LOCALCLOUD_ENVIRONMENT, else development).")
    public var environment: EnvironmentName?

    /// `--environment`'s values: LocalCloud's environments.
    public enum EnvironmentName: String, CaseIterable, ExpressibleByArgument, Sendable {
        case development
        case production

        public var environment: Container.Environment { self == .production ? .production : .development }
    }

    public init() {}

    /// LocalCloud's own resolution (`LOCALCLOUD_*` variables, including `LOCALCLOUD_LATENCY_MS`),
    /// overridden by the options that were given.
    public func configuration(
        environment variables: [String: String] = ProcessInfo.processInfo.environment
    ) -> Container.Configuration {
        var configuration = Container.Configuration.fromEnvironment(identifier: container, environment: variables)
        if let dataDirectory {
            configuration.dataDirectory = URL(fileURLWithPath: dataDirectory, isDirectory: true)
        }
        if let user { configuration.user = user.isEmpty ? nil : user }
        if let environment { configuration.environment = environment.environment }
        return configuration
    }
}
