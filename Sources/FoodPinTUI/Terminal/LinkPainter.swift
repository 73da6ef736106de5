#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FoodPinCore

/// Writes a grid's hyperlinks after ncurses has drawn the text frame (``HyperlinkWriter``), and
/// has ncurses repaint the rows of links that left, so no cell keeps a link it no longer shows.
final class LinkPainter {
    private let writer: HyperlinkWriter
    private var previous: Grid?

    init(colorMode: ColorMode) {
        writer = HyperlinkWriter(colorMode: colorMode)
    }

    /// Forget what is on screen (after a resize): every link is written again.
    func invalidate() {
        previous = nil
    }

    /// Called after the text frame (and the photos) of `grid` were drawn.
    func paint(_ grid: Grid, repaint: (Range<Int>) -> Void) {
        defer { previous = grid }
        guard !grid.links.isEmpty || !(previous?.links.isEmpty ?? true) else { return }
        let rows = HyperlinkWriter.rowsToRepaint(previous: previous, current: grid)
        for row in rows.sorted() { repaint(row..<(row + 1)) }
        var output: [UInt8] = []
        for span in HyperlinkWriter.spansToWrite(previous: previous, current: grid, repainted: rows) {
            output += writer.bytes(for: span, in: grid)
        }
        guard !output.isEmpty else { return }
        // ncurses has flushed its frame (wrefresh); the links go after it on the same descriptor.
        _ = fflush(nil)
        var offset = 0
        while offset < output.count {
            let written = output[offset...].withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            offset += written
        }
    }
}
