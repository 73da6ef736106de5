import CVipsShim

/// Encodes pixels for a terminal graphics protocol with libchafa's own encoders: kitty's
/// graphics protocol, sixel, or iTerm2's inline images (`chafa_canvas_print` in that pixel mode).
///
/// ```swift
/// let encoder = ChafaEncoder(mode: .kitty, cellPixels: CellPixelSize(width: 10, height: 20))
/// let image = encoder.encode(rgba, width: 120, height: 90, bands: 4, columns: 6, rows: 3)
/// // "\e_Ga=T,f=32,s=60,v=45,c=6,r=3,m=1;…" — the photo scaled to the box's pixel size
/// ```
///
/// The sequences come from chafa's fallback terminal info, which holds all three encodings:
/// the mode was already decided by asking the terminal, so `TERM` must not veto it.
package struct ChafaEncoder: Hashable, Sendable {
    package var mode: ImageMode
    package var cellPixels: CellPixelSize

    package init(mode: ImageMode, cellPixels: CellPixelSize) {
        precondition(mode.usesPixels, "ChafaEncoder encodes pixel modes only")
        self.mode = mode
        self.cellPixels = cellPixels
    }

    /// The pixel size to decode a photo at for a box of `columns`×`rows` cells.
    package func pixelSize(columns: Int, rows: Int) -> (width: Int, height: Int) {
        (columns * cellPixels.width, rows * cellPixels.height)
    }

    /// Encodes 8-bit pixels (RGB when `bands` is 3, unassociated RGBA when 4) to cover
    /// `columns`×`rows` cells, scaled by libchafa to that many cells' pixels.
    package func encode(_ pixels: UnsafePointer<UInt8>, width: Int, height: Int, bands: Int,
                       columns: Int, rows: Int) -> PixelImage {
        var printed: UnsafeMutablePointer<CChar>?
        var length = 0
        var bytes: [UInt8] = []
        if cchafa_encode(pixels, Int32(width), Int32(height), Int32(bands), Int32(columns), Int32(rows),
                         Int32(cellPixels.width), Int32(cellPixels.height), pixelMode, &printed, &length) == 0, let printed {
            bytes = Array(UnsafeRawBufferPointer(start: printed, count: length).bindMemory(to: UInt8.self))
            cvips_free(printed)
        }
        return PixelImage(mode: mode, bytes: bytes, columns: columns, rows: rows)
    }

    private var pixelMode: CChafaPixelMode {
        switch mode {
        case .kitty: CCHAFA_PIXELS_KITTY
        case .sixel: CCHAFA_PIXELS_SIXELS
        default: CCHAFA_PIXELS_ITERM2
        }
    }
}
