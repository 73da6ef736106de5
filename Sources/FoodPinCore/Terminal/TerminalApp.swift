/// An app driven by the terminal runtime: one UI thread, messages in, a grid out.
///
/// The runtime owns ncurses. It turns input, resizes and ticks into events,
/// asks the app for a message, applies it, then draws ``view(width:height:)``,
/// writing only the cells that changed. Background work started by `apply`
/// posts its results through the sink; they are applied on the UI thread too.
package protocol TerminalApp: AnyObject {
    associatedtype Message: Sendable

    /// Maps a terminal event to a message, or `nil` to ignore it.
    func message(for event: TerminalEvent) -> Message?
    /// Applies one message on the UI thread. Must not block: long work goes
    /// to background tasks that post back through `sink`.
    func apply(_ message: Message, sink: MessageSink<Message>)
    /// Renders the current state into a grid of exactly `width` × `height`.
    func view(width: Int, height: Int) -> Grid
    /// Set once the app wants to exit; the runtime restores the terminal and exits with ``exitCode``.
    var shouldQuit: Bool { get }
    var exitCode: Int32 { get }
    /// How often to send `.tick` (for spinners), or `nil` for no ticks while idle.
    var tickInterval: Duration? { get }
}
