import ArgumentParser
import FoodPinCore
import LocalCloudCLI

/// Options shared by the screen and the `list`/`add` subcommands: the container (``CloudOptions``,
/// shared with `localcloud`) and how the screen draws.
struct GlobalOptions: ParsableArguments {
    @OptionGroup var cloud: CloudOptions

    @Flag(name: .customLong("no-images"), help: "Do not load or draw thumbnails (the same as --images none).")
    var noImages = false

    @Option(help: ArgumentHelp(
        "Thumbnails: auto, kitty, sixel, iterm, symbols or none. auto asks the terminal (kitty graphics query, DA1) "
            + "and falls back to symbols; inside tmux or screen it uses symbols.",
        valueName: "mode"))
    var images: ImageModeDecision.Choice?

    /// `--images`, with `--no-images` as a synonym for `none`.
    var imageChoice: ImageModeDecision.Choice { noImages ? .none : images ?? .auto }

    @Option(help: "Colours: auto, 256, 16, 8 or none. auto honours NO_COLOR and the terminal.")
    var color: ColorChoice = .auto

    @Flag(help: "Show cache counters and timings in the status line.")
    var debug = false
}
