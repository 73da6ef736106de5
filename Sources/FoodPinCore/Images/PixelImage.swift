/// A photo encoded for one terminal graphics protocol, ready to write at a cell position.
///
/// A reference, compared by identity: grids that place the same encoded photo are equal
/// without comparing its bytes, and the bytes are shared, not copied, between frames.
package final class PixelImage: Hashable, Sendable, CustomStringConvertible {
    package let mode: ImageMode
    /// The escape sequence that draws the photo at the cursor (kitty APC, sixel DCS or OSC 1337).
    package let bytes: [UInt8]
    /// The cells it covers.
    package let columns: Int
    package let rows: Int

    package init(mode: ImageMode, bytes: [UInt8], columns: Int, rows: Int) {
        self.mode = mode
        self.bytes = bytes
        self.columns = columns
        self.rows = rows
    }

    package static func == (lhs: PixelImage, rhs: PixelImage) -> Bool { lhs === rhs }
    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    package var description: String { "PixelImage(\(mode), \(columns)×\(rows), \(bytes.count) bytes)" }
}
