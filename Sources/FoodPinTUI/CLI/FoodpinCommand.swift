import ArgumentParser
import FoodPinCore

/// `foodpin`: with no subcommand, opens the Discover screen.
///
/// The screen runs on the main thread, in this main-actor `run()`: ncurses must stay on one
/// thread, and background work (on the cooperative pool) reaches it through the runtime's sink.
/// Subcommands are async and await LocalCloud directly.
@main
struct FoodpinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "foodpin",
        abstract: "Discover and share restaurants, in the terminal.",
        version: "0.1.0",
        subcommands: [ListCommand.self, AddCommand.self, EditCommand.self, LoginCommand.self, LogoutCommand.self,
                      ListsCommand.self, SaveCommand.self, ShareCommand.self, UnshareCommand.self, AcceptCommand.self]
    )

    @OptionGroup var options: GlobalOptions

    @Flag(name: .customLong("no-links"), help: "Do not write phone numbers and locations as terminal hyperlinks (OSC 8).")
    var noLinks = false

    @MainActor
    mutating func run() async throws {
        ensureKnownTerminal()
        let colorMode = resolveColorMode(options.color)
        let imageMode = resolveImageMode(options.imageChoice)
        let code = runInteractive(app: makeDiscoverApp(colorMode: colorMode, imageMode: imageMode), colorMode: colorMode,
                                  imageMode: imageMode)
        if code != 0 { throw ExitCode(code) }
    }

    /// The Discover screen on LocalCloud: the backend seeds on its first query, so the
    /// spinner shows while a fresh container is filled.
    private func makeDiscoverApp(colorMode: ColorMode, imageMode: ImageMode) -> DiscoverApp {
        let session = CloudSession(options: options)
        // With pixels, each thumbnail is also encoded for the terminal at its cells' real pixel size.
        let encoder = imageMode.usesPixels
            ? ChafaEncoder(mode: imageMode, cellPixels: TerminalImageProbe.cellPixelSize()) : nil
        let showsImages = imageMode != .none
        let thumbnails = showsImages
            ? session.backend.thumbnailLoader(renderer: ThumbnailRenderer(colorMode: colorMode, encoder: encoder), lists: session.lists) : nil
        let handler = DiscoverEffectHandler(backend: session.backend, thumbnails: thumbnails, linkOpener: .system(),
                                            lists: session.lists)
        var config = AppConfig(
            colorMode: colorMode, unicode: localeIsUTF8(), currentUser: session.backend.currentUser,
            showsImages: showsImages, debug: options.debug)
        config.showsLinks = !noLinks && terminalShowsLinks()
        config.dataLocation = session.container.configuration.serverURL.map { $0.host ?? $0.absoluteString } ?? "local"
        let container = session.container
        return DiscoverApp(config: config, handler: handler, clockOffset: { container.serverClockOffset },
                           debugStatus: { handler.debugStatus })
    }
}
