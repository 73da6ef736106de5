import ArgumentParser
import Foundation
import LocalCloud
import LocalCloudCLI
import Testing

/// A root and a nested leaf declaring `CloudOptions` as both CLIs do.
private struct Root: ParsableCommand {
    static let configuration = CommandConfiguration(subcommands: [Group.self])
    @OptionGroup var cloud: CloudOptions
}

private struct Group: ParsableCommand {
    static let configuration = CommandConfiguration(subcommands: [Leaf.self])
}

private struct Leaf: ParsableCommand {
    @OptionGroup var cloud: CloudOptions
    @Argument var name: String
}

@Suite struct CloudOptionsTests {
    fileprivate func leaf(_ arguments: [String]) throws -> Leaf {
        let command = try Root.parseAsRoot(arguments)
        return try #require(command as? Leaf)
    }

    @Test func optionsWorkBeforeBetweenAndAfterSubcommandNames() throws {
        let spellings = [
            ["--data-dir", "/d", "--user", "bob", "--environment", "production", "group", "leaf", "x"],
            ["group", "--data-dir", "/d", "leaf", "--user", "bob", "x", "--environment", "production"],
            ["group", "leaf", "x", "--environment=production", "--user", "bob", "--data-dir", "/d"],
        ]
        for arguments in spellings {
            let options = try leaf(arguments).cloud
            #expect(options.dataDirectory == "/d" && options.user == "bob" && options.environment == .production, "\(arguments)")
        }
    }

    @Test func theOneMappingToAConfiguration() throws {
        let env = ["LOCALCLOUD_HOME": "/env/home", "LOCALCLOUD_USER": "alice", "LOCALCLOUD_CONTAINER": "iCloud.Env",
                   "LOCALCLOUD_ENVIRONMENT": "production"]
        let fromEnvironment = try leaf(["group", "leaf", "x"]).cloud.configuration(environment: env)
        #expect(fromEnvironment == Container.Configuration.fromEnvironment(environment: env))
        let given = try leaf(["--data-dir", "/d", "--user", "", "--container", "iCloud.X", "--environment", "development",
                              "group", "leaf", "x"]).cloud.configuration(environment: env)
        #expect(given.dataDirectory.path == "/d")
        #expect(given.user == nil, "\"\" is no account")
        #expect(given.containerIdentifier == "iCloud.X")
        #expect(given.environment == .development)
    }
}
