import Foundation

extension CloudOptions {
    /// The two meanings of `--user` around a subcommand whose own `--user` names another person
    /// (`foodpin --user alice unshare Friday --user bob`): before the subcommand's name it is the
    /// acting user (``user``), after it the subcommand's.
    ///
    /// ArgumentParser matches an option by its name across the whole command stack, and the root's
    /// `@OptionGroup` declares `--user` first, so the root claims every `--user` and the
    /// subcommand's own option never sees a value; nor can the subcommand read the root's. The
    /// position of each `--user` is what tells them apart, so it is read from the arguments.
    ///
    /// ```swift
    /// CloudOptions.userOptions(in: ["--user", "alice", "unshare", "Friday", "--user=bob"], subcommand: "unshare")
    /// // (acting: "alice", subcommand: "bob")
    /// ```
    /// Arguments after `--` are not options; the last `--user` on each side wins, as ArgumentParser's do.
    public static func userOptions(in arguments: [String], subcommand: String) -> (acting: String?, subcommand: String?) {
        var acting: String?
        var own: String?
        var seenSubcommand = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { break }
            var value: String?
            if argument == "--user", index + 1 < arguments.count {
                value = arguments[index + 1]
                index += 1
            } else if argument.hasPrefix("--user=") {
                value = String(argument.dropFirst("--user=".count))
            } else if argument == subcommand, !seenSubcommand {
                seenSubcommand = true
            } else if Self.takesValue(argument) {
                index += 1   // an option's value is never the subcommand's name
            }
            if let value {
                if seenSubcommand { own = value } else { acting = value }
            }
            index += 1
        }
        return (acting, own)
    }

    /// The root's other options that take a value as the next argument.
    private static func takesValue(_ argument: String) -> Bool {
        ["--data-dir", "--container", "--environment", "--images", "--color"].contains(argument)
    }
}
