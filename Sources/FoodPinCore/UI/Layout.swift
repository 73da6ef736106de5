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

    /// Where the detail view's text goes: beside the image when wide, below it when narrow.
    static func detailText(width: Int, height: Int, showsImages: Bool) -> (x: Int, y: Int, width: Int) {
        guard showsImages else { return (1, listTop, width - 2) }
        let size = detailImageSize(width: width, height: height)
        if width >= 72 {
            let x = 1 + size.columns + 2
            return (x, listTop, width - x - 1)
        }
        return (1, listTop + size.rows + 1, width - 2)
    }

    static func detailDescriptionLines(_ restaurant: Restaurant, textWidth: Int) -> [String] {
        TextLayout.wrap(TextSanitizer.lines(restaurant.description), width: textWidth)
    }
}
