/// Picks the image mode for `--images auto|kitty|sixel|iterm|symbols|none`: pure, so the
/// decision table is tested without a terminal.
///
/// `auto` asks the terminal (a kitty graphics query, then DA1) and believes its replies, not
/// `TERM`: WezTerm says `xterm-256color` and speaks kitty graphics. Like chafa and yazi, it
/// falls back to symbols when nothing answers. Inside tmux or screen it uses symbols unless
/// passthrough is known to work, since the multiplexer answers DA1 itself and draws only cells.
///
/// ```swift
/// ImageModeDecision.decide(.auto, environment: ["TERM": "xterm-256color"],
///                          replies: TerminalReplies(parsing: Array("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[?62;4c".utf8)))
/// // .kitty
/// ```
package enum ImageModeDecision {
    /// What `--images` asks for.
    package enum Choice: String, Hashable, Sendable, CaseIterable {
        case auto, kitty, sixel, iterm, symbols, none
    }

    /// The kitty graphics query (a 1×1 RGB image, query action, id 31) followed by DA1 (`ESC [ c`).
    /// Every terminal answers DA1, so its reply ends the wait early; a kitty reply before it means kitty graphics.
    package static let query = "\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\\u{1B}[c"

    /// Whether `auto` should ask the terminal at all: not when a mode was given, and not inside
    /// a multiplexer without known passthrough (its answer would be the multiplexer's).
    /// The Linux console shows no pixels and may print an APC query as text: it is not asked either.
    package static func needsQuery(_ choice: Choice, environment: [String: String], passthrough: Bool = false) -> Bool {
        choice == .auto && (passthrough || !isMultiplexer(environment)) && environment["TERM"] != "linux"
    }

    /// Whether the environment names a terminal with kitty graphics (kitty, WezTerm, Ghostty):
    /// the probe may then stop at the kitty reply instead of waiting for DA1.
    package static func hintsKitty(_ environment: [String: String]) -> Bool {
        environment["KITTY_WINDOW_ID"].map { !$0.isEmpty } == true || environment["TERM"] == "xterm-kitty"
            || environment["TERM"] == "xterm-ghostty" || ["WezTerm", "ghostty"].contains(environment["TERM_PROGRAM"] ?? "")
    }

    /// Inside tmux or GNU screen: `TMUX` or `STY` is set, or `TERM` names one of them.
    package static func isMultiplexer(_ environment: [String: String]) -> Bool {
        if environment["TMUX"].map({ !$0.isEmpty }) == true || environment["STY"].map({ !$0.isEmpty }) == true { return true }
        let term = environment["TERM"] ?? ""
        return term.hasPrefix("screen") || term.hasPrefix("tmux")
    }

    /// The mode to use.
    ///
    /// - Parameters:
    ///   - choice: `--images`.
    ///   - environment: `TERM`, `TERM_PROGRAM`, `KITTY_WINDOW_ID`, `TMUX`, `STY`: hints only.
    ///   - replies: what the terminal answered to ``query`` (`nil`: not asked, or no answer in time).
    ///   - passthrough: the multiplexer is known to pass graphics through.
    package static func decide(_ choice: Choice, environment: [String: String], replies: TerminalReplies?,
                              passthrough: Bool = false) -> ImageMode {
        switch choice {
        case .kitty: return .kitty
        case .sixel: return .sixel
        case .iterm: return .iterm
        case .symbols: return .symbols
        case .none: return .none
        case .auto: break
        }
        guard needsQuery(choice, environment: environment, passthrough: passthrough) else { return .symbols }
        guard let replies, replies.answered else { return .symbols }
        if replies.kittyGraphics { return .kitty }
        // iTerm2 has no query of its own for inline images; a live terminal that says it is iTerm2 has them.
        if environment["TERM_PROGRAM"] == "iTerm.app" { return .iterm }
        if replies.sixel { return .sixel }
        return .symbols
    }
}
