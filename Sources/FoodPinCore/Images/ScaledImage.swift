/// The JPEG that ``ImageScaler`` wrote: its pixel size and its size on disk.
package struct ScaledImage: Hashable, Sendable {
    package var width: Int
    package var height: Int
    package var byteCount: Int

    package init(width: Int, height: Int, byteCount: Int) {
        self.width = width
        self.height = height
        self.byteCount = byteCount
    }
}
