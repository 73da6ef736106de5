import ArgumentParser
import FoodPinCore
import Foundation
import LocalCloudCLI

/// `foodpin unshare LIST [--user NAME | --all]`: stops sharing one of my lists with one person,
/// or with everyone (the share is deleted).
///
/// Its `--user` names the person to remove, so it acts as `LOCALCLOUD_USER` (or the login name,
/// or the signed-in account), and takes the other container options one by one.
struct UnshareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unshare",
        abstract: "Stop sharing one of your lists with one person, or with everyone."
    )

    @Option(name: .customLong("data-dir"), help: ArgumentHelp("The data directory (default: LOCALCLOUD_HOME, …).", valueName: "path"))
    var dataDirectory: String?

    @Option(help: ArgumentHelp("The container identifier (default: LOCALCLOUD_CONTAINER or iCloud.FoodPin).", valueName: "id"))
    var container: String?

    @Option(help: "development or production (default: LOCALCLOUD_ENVIRONMENT, else development).")
    var environment: CloudOptions.EnvironmentName?

    @Argument(help: ArgumentHelp("The list's name.", valueName: "list"))
    var list: String

    @Option(help: ArgumentHelp("The person to remove (user name or email address).", valueName: "name"))
    var user: String?

    @Flag(help: "Stop sharing with everyone, the public link included.")
    var all = false

    /// `--user`'s value: the root command's `--user` (the acting user, for the screen) claims the
    /// option before this command sees it, so it is read from the arguments after `unshare`.
    var person: String? {
        user ?? Self.userArgument(in: Array(CommandLine.arguments.dropFirst()))
    }

    /// The value of `--user NAME` or `--user=NAME` after the `unshare` word.
    static func userArgument(in arguments: [String]) -> String? {
        guard let start = arguments.firstIndex(of: "unshare") else { return nil }
        var index = start + 1
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { return nil }
            if argument == "--user", index + 1 < arguments.count { return arguments[index + 1] }
            if argument.hasPrefix("--user=") { return String(argument.dropFirst("--user=".count)) }
            index += 1
        }
        return nil
    }

    func validate() throws {
        let user = person
        if user != nil && all { throw ValidationError("Give either --user or --all, not both.") }
        if user == nil && !all { throw ValidationError("Give --user NAME or --all.") }
    }

    mutating func run() async throws {
        var cloud = CloudOptions()
        cloud.dataDirectory = dataDirectory
        cloud.container = container
        cloud.user = nil
        cloud.environment = environment
        let session = CloudSession(cloud: cloud)
        defer { session.leaveOpenAtExit() }
        let lists = session.lists
        let (list, user) = (list, person)
        do {
            try await lists.unshare(listNamed: list, user: user)
            print(user.map { "\(TextSanitizer.line(list)) is no longer shared with \(TextSanitizer.line($0))" }
                ?? "\(TextSanitizer.line(list)) is no longer shared")
        } catch {
            printFailure("foodpin unshare", TextSanitizer.line(DiscoverError(error, while: .saveFailed).message))
            throw ExitCode(1)
        }
    }
}
