import ArgumentParser
import LocalCloudCLI

/// The options every subcommand takes, before or after its name: the container (``CloudOptions``,
/// shared with `foodpin`) and `--json`. The root command and each command that runs declare it
/// as `@OptionGroup var global`, which is what lets ArgumentParser read it on either side.
struct GlobalOptions: ParsableArguments {
    @OptionGroup var cloud: CloudOptions

    @Flag(name: .long, help: "Machine-readable JSON output.")
    var json = false
}
