/// What the thumbnail cache is keyed by: a record and the size it was rendered at.
public struct ThumbnailKey: Hashable, Sendable {
    public var recordID: String
    public var size: ThumbnailSize

    public init(recordID: String, size: ThumbnailSize) {
        self.recordID = recordID
        self.size = size
    }
}
