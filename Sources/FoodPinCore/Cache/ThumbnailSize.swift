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

/// What the thumbnail cache is keyed by: a record and the size it was rendered at.
public struct ThumbnailKey: Hashable, Sendable {
    public var recordID: String
    public var size: ThumbnailSize

    public init(recordID: String, size: ThumbnailSize) {
        self.recordID = recordID
        self.size = size
    }
}

/// How loading one thumbnail ended.
public enum ThumbnailOutcome: Sendable {
    case image(any ThumbnailImage)
    /// The record has no image.
    case noImage
    /// Fetching or rendering failed; the row keeps a placeholder.
    case failed(String)
}
