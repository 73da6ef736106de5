/// A pixel photo placed on a grid: the adapter draws it at (`x`, `y`) after the text frame.
///
/// The grid's own cells under it hold blanks, so the text grid stays correct beneath it.
public struct ImagePlacement: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public var image: PixelImage

    public init(x: Int, y: Int, image: PixelImage) {
        self.x = x
        self.y = y
        self.image = image
    }

    public var columns: Int { image.columns }
    public var rows: Int { image.rows }

    /// Whether the cell at (`column`, `row`) is under the photo.
    public func covers(column: Int, row: Int) -> Bool {
        column >= x && column < x + columns && row >= y && row < y + rows
    }
}
