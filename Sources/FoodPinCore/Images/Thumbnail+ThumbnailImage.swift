/// The image pipeline's thumbnails go straight into the thumbnail cache and the grid.
extension Thumbnail: ThumbnailImage {
    package var columns: Int { width }
    package var rows: Int { height }
    package func cell(column: Int, row: Int) -> Cell { self[column, row] }
    package var pixelOrigin: (column: Int, row: Int) { (imageColumns.lowerBound, imageRows.lowerBound) }
}
