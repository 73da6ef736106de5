/// How thumbnails reach the terminal: as pixels through one of the graphics protocols, as
/// coloured symbol cells (libchafa's blocks), or not at all.
///
/// ```swift
/// let mode = ImageModeDecision.decide(.auto, environment: env, replies: replies)   // .kitty on kitty
/// mode.usesPixels   // true: the photo is encoded by libchafa and placed after the text frame
/// ```
package enum ImageMode: String, Hashable, Sendable, CaseIterable {
    /// kitty's graphics protocol (kitty, WezTerm, Ghostty, Konsole).
    case kitty
    /// DEC sixel graphics (foot, xterm -ti vt340, WezTerm, mlterm, Windows Terminal).
    case sixel
    /// iTerm2's inline images (OSC 1337).
    case iterm
    /// Coloured block symbols in ordinary cells: works everywhere, including tmux.
    case symbols
    /// No thumbnails (`--images none`, `--no-images`).
    case none

    /// Whether thumbnails are pixels placed over the text frame.
    package var usesPixels: Bool {
        switch self {
        case .kitty, .sixel, .iterm: true
        case .symbols, .none: false
        }
    }
}
