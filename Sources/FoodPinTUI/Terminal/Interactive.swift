#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CNCurses
import Foundation
import FoodPinCore

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
func runInteractive(app: some TerminalApp, colorMode: ColorMode) -> Int32 {
    prepareLocale()
    do {
        return try TerminalRuntime(app: app, colorMode: colorMode).run()
    } catch {
        printError("foodpin: \(error.message)")
        return 1
    }
}

/// The colour mode for `--color`, `NO_COLOR` and `$TERM`'s terminfo, known before the
/// screen starts so the app (and its thumbnails) can be built for it.
func resolveColorMode(_ choice: ColorChoice, environment: [String: String] = currentEnvironment()) -> ColorMode {
    let colors = cn_terminfo_colors(nil)
    return ColorPalette.resolveMode(requested: choice.mode, noColor: environment["NO_COLOR"], terminalColors: Int(colors))
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

func currentEnvironment() -> [String: String] {
    ProcessInfo.processInfo.environment
}

func printError(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
}
