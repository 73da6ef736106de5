/// What the terminal runtime delivers to the app on the UI thread.
package enum TerminalEvent: Hashable, Sendable {
    case key(Key)
    /// The terminal is now `width` × `height` cells.
    case resize(width: Int, height: Int)
    /// A timer tick, sent only while the app asks for one (``TerminalApp/tickInterval``).
    case tick
}
