import ArgumentParser
import LocalCloudCLI
import Testing

/// A root declaring `CloudOptions` and a subcommand with its own `--user`, as `foodpin unshare`.
private struct Root: ParsableCommand {
    static let configuration = CommandConfiguration(subcommands: [Unshare.self])
    @OptionGroup var cloud: CloudOptions
}

private struct Unshare: ParsableCommand {
    @Argument var list: String
    @Option var user: String?
}

@Suite struct CloudOptionsSubcommandUserTests {
    @Test func theRootClaimsTheSubcommandsUserOption() throws {
        // The clash itself: ArgumentParser gives `--user` after the subcommand's name to the root's
        // option, so the subcommand's own `--user` is left empty. If this ever changes, the
        // position-reading below is no longer needed.
        let command = try #require(try Root.parseAsRoot(["unshare", "Friday", "--user", "bob"]) as? Unshare)
        #expect(command.list == "Friday")
        #expect(command.user == nil)
    }

    @Test(arguments: [
        (["--user", "alice", "unshare", "Friday", "--user", "bob"], "alice", "bob"),
        (["--user=alice", "unshare", "--user=bob", "Friday"], "alice", "bob"),
        (["unshare", "Friday", "--user", "bob"], nil, "bob"),
        (["--user", "alice", "unshare", "Friday", "--all"], "alice", nil),
        (["--data-dir", "unshare", "unshare", "Friday", "--user", "bob"], nil, "bob"),
        (["--container", "c", "--user", "alice", "unshare", "Friday", "--", "--user", "x"], "alice", nil),
        (["--user", "unshare", "unshare", "Friday", "--user", "bob"], "unshare", "bob"),
        (["unshare", "Friday", "--user", "bob", "--user", "carol"], nil, "carol"),
    ] as [([String], String?, String?)])
    func theUsersAreToldApartByPosition(arguments: [String], acting: String?, person: String?) {
        let found = CloudOptions.userOptions(in: arguments, subcommand: "unshare")
        #expect(found.acting == acting)
        #expect(found.subcommand == person)
    }
}
