/// The size of a thumbnail in terminal cells.
package struct ThumbnailSize: Hashable, Sendable, CustomStringConvertible {
    package var columns: Int
    package var rows: Int

    package init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }

    /// A list row's thumbnail: three text lines tall.
    package static let row = ThumbnailSize(columns: 6, rows: 3)

    package var description: String { "\(columns)×\(rows)" }
}
