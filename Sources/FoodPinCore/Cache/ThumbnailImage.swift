/// A picture made of terminal cells, as the image pipeline renders it.
///
/// The UI layer only needs to copy cells and know what an image costs in memory,
/// so the pipeline's own type (e.g. `Thumbnail`) conforms with a small extension.
package protocol ThumbnailImage: Sendable {
    /// Width in cells.
    var columns: Int { get }
    /// Height in cells.
    var rows: Int { get }
    /// The cell at a position; `column < columns`, `row < rows`.
    func cell(column: Int, row: Int) -> Cell
    /// Memory held, in bytes: the cache's cost.
    var cost: Int { get }
    /// The photo encoded for a graphics protocol, if the pipeline made one.
    var pixels: PixelImage? { get }
    /// Where ``pixels`` starts inside the box, in cells.
    var pixelOrigin: (column: Int, row: Int) { get }
}

extension ThumbnailImage {
    /// Cells only, by default.
    package var pixels: PixelImage? { nil }
    package var pixelOrigin: (column: Int, row: Int) { (0, 0) }
}
