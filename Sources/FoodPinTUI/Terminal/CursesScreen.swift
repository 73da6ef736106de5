#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CNCurses
import FoodPinCore

/// The ncurses session: started on the UI thread, ended exactly once with ``close()``.
///
/// Raw mode (so Ctrl-C, Ctrl-S and Ctrl-Z reach the app as keys), no echo, keypad
/// decoding, a hidden cursor, a short Esc delay, and wheel events only (no click
/// tracking delays). Reads never block: the runtime polls stdin first.
final class CursesScreen {
    private let screen: OpaquePointer
    private var isClosed = false
    /// The colour mode in effect: the requested one, capped by what the terminal can show.
    let colorMode: ColorMode
    /// Whether `-1` means the terminal's own colours (`use_default_colors` worked).
    let hasDefaultColors: Bool

    init(requestedColorMode: ColorMode) throws(TerminalError) {
        guard let screen = cn_newterm() else {
            let term = getenv("TERM").map { String(cString: $0) } ?? "(unset)"
            throw TerminalError(code: .cannotStart, message: "cannot start the terminal screen (TERM=\(term))")
        }
        self.screen = screen
        _ = set_term(screen)
        cn_install_crash_restore()
        _ = raw()
        _ = noecho()
        _ = nonl()
        _ = intrflush(cn_stdscr(), false)
        _ = keypad(cn_stdscr(), true)
        _ = nodelay(cn_stdscr(), true)
        Self.defineAlternateKeys()
        _ = curs_set(0)
        _ = set_escdelay(25)
        _ = mouseinterval(0)
        _ = mousemask(cn_button4_pressed() | cn_button5_pressed(), nil)

        var mode = ColorMode.none
        var defaults = false
        if requestedColorMode != .none, has_colors(), start_color() == OK {
            mode = ColorPalette.resolveMode(requested: requestedColorMode, noColor: nil, terminalColors: Int(cn_colors()))
            defaults = use_default_colors() == OK
        }
        colorMode = mode
        hasDefaultColors = defaults
    }

    /// Home, End and Shift-Tab as other terminals (and tmux, rxvt, the Linux console) send
    /// them, for when `$TERM`'s terminfo names a different sequence or none.
    private static func defineAlternateKeys() {
        let alternates: [(String, Int32)] = [
            ("\u{1B}[1~", KEY_HOME), ("\u{1B}[7~", KEY_HOME), ("\u{1B}[H", KEY_HOME), ("\u{1B}OH", KEY_HOME),
            ("\u{1B}[4~", KEY_END), ("\u{1B}[8~", KEY_END), ("\u{1B}[F", KEY_END), ("\u{1B}OF", KEY_END),
            ("\u{1B}[Z", KEY_BTAB), ("\u{1B}[3~", KEY_DC),
            ("\u{1B}[5~", KEY_PPAGE), ("\u{1B}[6~", KEY_NPAGE),
        ]
        for (sequence, code) in alternates {
            _ = define_key(sequence, code)
        }
    }

    var width: Int { Int(cn_cols()) }
    var height: Int { Int(cn_lines()) }

    /// Asks the kernel for the new size after SIGWINCH and tells ncurses.
    /// Returns whether the size changed.
    @discardableResult
    func updateSize() -> Bool {
        var rows: Int32 = 0
        var cols: Int32 = 0
        guard cn_window_size(STDOUT_FILENO, &rows, &cols) == 0, rows > 0, cols > 0 else { return false }
        guard Int(rows) != height || Int(cols) != width else { return false }
        _ = resizeterm(rows, cols)
        return true
    }

    /// Everything ncurses can decode without waiting (it waits at most the Esc delay
    /// to complete an escape sequence).
    func readInput() -> [CursesInput] {
        var inputs: [CursesInput] = []
        var code: wint_t = 0
        while true {
            let result = wget_wch(cn_stdscr(), &code)
            if result == ERR { break }
            if let input = CursesInput.decode(UInt32(code), isKeyCode: result == KEY_CODE_YES) {
                inputs.append(input)
            }
        }
        return inputs
    }

    /// Restores the terminal: cooked mode, cursor, main screen, mouse off.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        _ = mousemask(0, nil)
        _ = curs_set(1)
        _ = endwin()
        cn_remove_crash_restore()
        delscreen(screen)
    }

    deinit { close() }
}
