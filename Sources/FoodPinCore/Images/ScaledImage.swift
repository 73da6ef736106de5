/// The JPEG that ``ImageScaler`` wrote: its pixel size and its size on disk.
public struct ScaledImage: Hashable, Sendable {
    public var width: Int
    public var height: Int
    public var byteCount: Int

    public init(width: Int, height: Int, byteCount: Int) {
        self.width = width
        self.height = height
        self.byteCount = byteCount
    }
}
