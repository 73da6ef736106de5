/// Sizes the view and `update` agree on.
enum Layout {
    static let minimumWidth = 40
    static let minimumHeight = 10
    /// Title bar and status line above the list, help bar below.
    static let listTop = 2
    static let rowHeight = 3
    static let thumbnailColumn = 2
    static let textColumn = thumbnailColumn + ThumbnailSize.row.columns + 2

    static func visibleRowCount(height: Int) -> Int { max(1, (height - listTop - 1) / rowHeight) }

    static func detailImageSize(width: Int, height: Int) -> ThumbnailSize {
        let columns = width >= 72 ? 32 : max(8, min(24, width - 4))
        let rows = max(3, min(columns / 2, height - 9))
        return ThumbnailSize(columns: columns, rows: rows)
    }
}
