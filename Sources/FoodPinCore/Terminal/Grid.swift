/// A rectangle of cells that the view fills and the terminal adapter draws.
///
/// Tests assert on ``lines`` the way ratatui's `TestBackend` does.
package struct Grid: Hashable, Sendable {
    package let width: Int
    package let height: Int
    package private(set) var cells: [Cell]
    /// Pixel photos to place over the text frame, in drawing order (see ``ImagePlacement``).
    package var images: [ImagePlacement] = []
    /// Cells that are hyperlinks, for the adapter to write as OSC 8 after the text frame.
    package var links: [LinkSpan] = []

    package init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    package subscript(x: Int, y: Int) -> Cell {
        get { cells[y * width + x] }
        set {
            guard x >= 0, y >= 0, x < width, y < height else { return }
            cells[y * width + x] = newValue
        }
    }

    /// Writes `text` from column `x` of row `y`, clipped at `maxX` (exclusive, default the grid's width).
    /// Returns the column after the last cell written.
    ///
    /// Text must already be sanitized: this only places graphemes by their display width.
    @discardableResult
    package mutating func put(_ text: String, x: Int, y: Int, style: CellStyle = .plain, maxX: Int? = nil) -> Int {
        guard y >= 0, y < height else { return x }
        let limit = min(maxX ?? width, width)
        var column = x
        for character in text {
            let w = DisplayWidth.of(character)
            if w == 0 { continue }
            if column + w > limit { break }
            if column >= 0 {
                self[column, y] = Cell(character, width: w, style: style)
                if w == 2 { self[column + 1, y] = .continuation(style: style) }
            }
            column += w
        }
        return column
    }

    /// Fills a rectangle with blank cells of `style`.
    package mutating func fill(x: Int, y: Int, width w: Int, height h: Int, style: CellStyle = .plain) {
        for row in max(0, y)..<min(height, y + h) {
            for col in max(0, x)..<min(width, x + w) { self[col, row] = Cell(" ", style: style) }
        }
    }

    /// The text of each row, continuation cells skipped, trailing spaces kept.
    package var lines: [String] {
        (0..<height).map { row in
            var line = ""
            for col in 0..<width where !self[col, row].isContinuation { line.append(self[col, row].character) }
            return line
        }
    }

    /// All rows joined by newlines, trailing spaces trimmed per row.
    package var text: String {
        lines.map { String($0.reversed().drop(while: { $0 == " " }).reversed()) }.joined(separator: "\n")
    }
}
