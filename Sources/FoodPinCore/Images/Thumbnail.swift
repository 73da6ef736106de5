/// An image drawn as terminal cells, ready to copy into a `Grid`.
///
/// Always exactly the requested ``CellBox``: the picture keeps its aspect ratio and is centred,
/// with blank cells around it. Cells are stored row by row.
package struct Thumbnail: Hashable, Sendable {
    package let width: Int
    package let height: Int
    package let cells: [Cell]
    /// Where the picture sits inside the box (the rest is blank).
    package let imageColumns: Range<Int>
    package let imageRows: Range<Int>
    /// The photo encoded for the terminal's graphics protocol, covering `imageColumns`×`imageRows`,
    /// when the renderer has a pixel mode; the cells are then the fallback.
    package let pixels: PixelImage?

    init(width: Int, height: Int, cells: [Cell], imageColumns: Range<Int>, imageRows: Range<Int>, pixels: PixelImage? = nil) {
        precondition(cells.count == width * height, "a thumbnail holds width × height cells")
        self.width = width
        self.height = height
        self.cells = cells
        self.imageColumns = imageColumns
        self.imageRows = imageRows
        self.pixels = pixels
    }

    /// A box of blank cells with one glyph in the middle, shown while the real one loads.
    package static func placeholder(_ box: CellBox, glyph: Character = "·") -> Thumbnail {
        var cells = Array(repeating: Cell.blank, count: box.columns * box.rows)
        cells[(box.rows / 2) * box.columns + box.columns / 2] = Cell(glyph, style: CellStyle(attributes: .dim))
        return Thumbnail(width: box.columns, height: box.rows, cells: cells, imageColumns: 0..<0, imageRows: 0..<0)
    }

    package subscript(column: Int, row: Int) -> Cell {
        cells[row * width + column]
    }

    /// One row of cells, left to right.
    package func row(_ row: Int) -> ArraySlice<Cell> {
        cells[(row * width)..<((row + 1) * width)]
    }

    /// The text of each row, for tests and logs.
    package var text: [String] {
        (0..<height).map { String(row($0).map(\.character)) }
    }

    /// Bytes this value keeps alive, for an LRU's `totalCostLimit`.
    package var cost: Int {
        MemoryLayout<Thumbnail>.stride + cells.capacity * MemoryLayout<Cell>.stride + (pixels?.bytes.count ?? 0)
    }
}
