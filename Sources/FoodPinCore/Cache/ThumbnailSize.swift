/// The size of a thumbnail in terminal cells.
public struct ThumbnailSize: Hashable, Sendable, CustomStringConvertible {
    public var columns: Int
    public var rows: Int

    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }

    /// A list row's thumbnail: three text lines tall.
    public static let row = ThumbnailSize(columns: 6, rows: 3)

    public var description: String { "\(columns)×\(rows)" }
}
