/// The image pipeline's thumbnails go straight into the thumbnail cache and the grid.
extension Thumbnail: ThumbnailImage {
    public var columns: Int { width }
    public var rows: Int { height }
    public func cell(column: Int, row: Int) -> Cell { self[column, row] }
    public var pixelOrigin: (column: Int, row: Int) { (imageColumns.lowerBound, imageRows.lowerBound) }
}
