/// Opens a link outside the terminal (a browser for the map), or says it cannot.
///
/// ```swift
/// let opener = LinkOpener { url in launch("xdg-open", url) }   // the TUI's: xdg-open or open
/// LinkOpener.unavailable.open("https://…")                       // false: the screen shows the URL
/// ```
package struct LinkOpener: Sendable {
    /// Starts opening `target`; returns whether a program took it.
    package var open: @Sendable (String) -> Bool

    package init(open: @escaping @Sendable (String) -> Bool) {
        self.open = open
    }

    /// No program opens links here.
    package static let unavailable = LinkOpener { _ in false }
}
