/// A pixel photo placed on a grid: the adapter draws it at (`x`, `y`) after the text frame.
///
/// The grid's own cells under it hold blanks, so the text grid stays correct beneath it.
package struct ImagePlacement: Hashable, Sendable {
    package var x: Int
    package var y: Int
    package var image: PixelImage

    package init(x: Int, y: Int, image: PixelImage) {
        self.x = x
        self.y = y
        self.image = image
    }

    package var columns: Int { image.columns }
    package var rows: Int { image.rows }

    /// Whether the cell at (`column`, `row`) is under the photo.
    package func covers(column: Int, row: Int) -> Bool {
        column >= x && column < x + columns && row >= y && row < y + rows
    }
}
