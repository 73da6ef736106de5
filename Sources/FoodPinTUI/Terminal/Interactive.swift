#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CNCurses
import Foundation
import FoodPinCore
import LocalCloudCLI

/// Runs `app` full-screen on this thread until it quits, and returns the exit code.
///
/// Call it from the main thread (a synchronous `ParsableCommand.run`). If the screen
/// cannot start (no terminal, unknown `TERM`), prints why to stderr and returns 1.
///
/// ```swift
/// let mode = resolveColorMode(options.color)
/// let code = runInteractive(app: DiscoverApp(..., colorMode: mode), colorMode: mode)
/// throw ExitCode(code)
/// ```
func runInteractive(app: some TerminalApp, colorMode: ColorMode, imageMode: ImageMode = .symbols) -> Int32 {
    prepareLocale()
    do {
        return try TerminalRuntime(app: app, colorMode: colorMode, imageMode: imageMode).run()
    } catch {
        printFailure("foodpin", error.message)
        return 1
    }
}

/// The colour mode for `--color`, `NO_COLOR` and `$TERM`'s terminfo, known before the
/// screen starts so the app (and its thumbnails) can be built for it.
func resolveColorMode(_ choice: ColorChoice, environment: [String: String] = currentEnvironment()) -> ColorMode {
    let colors = cn_terminfo_colors(nil)
    return ColorPalette.resolveMode(requested: choice.mode, noColor: environment["NO_COLOR"], terminalColors: Int(colors))
}

/// Makes sure `TERM` has a terminfo entry here: one without (kitty's `xterm-kitty` over SSH is
/// the classic case) becomes `xterm-256color`, with a one-line notice, instead of failing to start.
/// Graphics are not decided by `TERM` but by asking the terminal.
func ensureKnownTerminal(environment: [String: String] = currentEnvironment()) {
    guard let term = environment["TERM"], !term.isEmpty, isatty(STDOUT_FILENO) == 1 else { return }
    guard cn_terminfo_exists(term) == 0, cn_terminfo_exists("xterm-256color") == 1 else { return }
    printError("foodpin: TERM=\(TextSanitizer.line(term)) has no terminfo entry here; using xterm-256color")
    setenv("TERM", "xterm-256color", 1)
}

/// The image mode for `--images` (and `--no-images`): `auto` asks the terminal, unless inside
/// tmux or screen, and decides from its replies.
func resolveImageMode(_ choice: ImageModeDecision.Choice, environment: [String: String] = currentEnvironment()) -> ImageMode {
    let replies = ImageModeDecision.needsQuery(choice, environment: environment)
        ? TerminalImageProbe.ask(expectsKitty: ImageModeDecision.hintsKitty(environment)) : nil
    return ImageModeDecision.decide(choice, environment: environment, replies: replies)
}

/// Uses the user's locale, so ncurses writes UTF-8; an unconfigured (ASCII "C") locale
/// falls back to C.UTF-8, as every terminal we target speaks UTF-8.
func prepareLocale() {
    _ = setlocale(LC_ALL, "")
    let codeset = String(cString: nl_langinfo(nl_item(CODESET)))
    if codeset == "ANSI_X3.4-1968" || codeset == "US-ASCII" {
        _ = setlocale(LC_CTYPE, "C.UTF-8")
    }
}

/// Whether the screen will write UTF-8 (after ``prepareLocale()``); `false` selects the
/// app's ASCII spinner and glyphs.
func localeIsUTF8() -> Bool {
    prepareLocale()
    let codeset = String(cString: nl_langinfo(nl_item(CODESET))).uppercased()
    return codeset == "UTF-8" || codeset == "UTF8"
}

func currentEnvironment() -> [String: String] {
    ProcessInfo.processInfo.environment
}

/// A failure of `foodpin` or a subcommand, as one line on stderr that is never blank after the prefix.
func printFailure(_ prefix: String, _ message: String) {
    printError(FailureLine.text(prefix, message))
}

func printError(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
}
