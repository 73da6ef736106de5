/// Cells of one row that are a hyperlink: the view marks them, and the terminal adapter writes
/// them again wrapped in OSC 8 after the text frame (only where the terminal takes links).
///
/// ```swift
/// grid.put("Phone: 555 0100", x: 2, y: 5)
/// grid.links.append(LinkSpan(x: 9, y: 5, width: 8, link: Hyperlink.phone("555 0100")!))
/// ```
package struct LinkSpan: Hashable, Sendable {
    package var x: Int
    package var y: Int
    /// Columns, counting both halves of wide characters.
    package var width: Int
    package var link: Hyperlink

    package init(x: Int, y: Int, width: Int, link: Hyperlink) {
        self.x = x
        self.y = y
        self.width = width
        self.link = link
    }
}
