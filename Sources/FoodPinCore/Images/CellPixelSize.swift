/// The size of one terminal cell in pixels, from `TIOCGWINSZ` when the terminal reports it.
package struct CellPixelSize: Hashable, Sendable {
    package var width: Int
    package var height: Int

    package init(width: Int, height: Int) {
        self.width = max(1, width)
        self.height = max(1, height)
    }

    /// What most terminals use at common font sizes, when the kernel reports no pixel size.
    package static let fallback = CellPixelSize(width: 10, height: 20)

    /// The cell size from a window size in pixels and cells; the fallback when it is unknown or absurd.
    package static func from(pixelWidth: Int, pixelHeight: Int, columns: Int, rows: Int) -> CellPixelSize {
        guard pixelWidth > 0, pixelHeight > 0, columns > 0, rows > 0 else { return .fallback }
        let width = pixelWidth / columns
        let height = pixelHeight / rows
        guard (4...64).contains(width), (8...128).contains(height) else { return .fallback }
        return CellPixelSize(width: width, height: height)
    }
}
