import CChafa

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
public struct ChafaEncoder: Hashable, Sendable {
    public var mode: ImageMode
    public var cellPixels: CellPixelSize

    public init(mode: ImageMode, cellPixels: CellPixelSize) {
        precondition(mode.usesPixels, "ChafaEncoder encodes pixel modes only")
        self.mode = mode
        self.cellPixels = cellPixels
    }

    /// The pixel size to decode a photo at for a box of `columns`×`rows` cells.
    public func pixelSize(columns: Int, rows: Int) -> (width: Int, height: Int) {
        (columns * cellPixels.width, rows * cellPixels.height)
    }

    /// Encodes 8-bit pixels (RGB when `bands` is 3, unassociated RGBA when 4) to cover
    /// `columns`×`rows` cells, scaled by libchafa to that many cells' pixels.
    public func encode(_ pixels: UnsafePointer<UInt8>, width: Int, height: Int, bands: Int,
                       columns: Int, rows: Int) -> PixelImage {
        let config = chafa_canvas_config_new()
        defer { chafa_canvas_config_unref(config) }
        chafa_canvas_config_set_geometry(config, Int32(columns), Int32(rows))
        chafa_canvas_config_set_cell_geometry(config, Int32(cellPixels.width), Int32(cellPixels.height))
        chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_TRUECOLOR)
        chafa_canvas_config_set_pixel_mode(config, pixelMode)
        let canvas = chafa_canvas_new(config)
        defer { chafa_canvas_unref(canvas) }
        let type = bands == 3 ? CHAFA_PIXEL_RGB8 : CHAFA_PIXEL_RGBA8_UNASSOCIATED
        chafa_canvas_draw_all_pixels(canvas, type, pixels, Int32(width), Int32(height), Int32(width * bands))
        var bytes: [UInt8] = []
        if let printed = chafa_canvas_print(canvas, Self.termInfo.pointer) {
            if let string = printed.pointee.str {
                bytes = Array(UnsafeRawBufferPointer(start: string, count: Int(printed.pointee.len)).bindMemory(to: UInt8.self))
            }
            g_string_free(printed, 1)
        }
        return PixelImage(mode: mode, bytes: bytes, columns: columns, rows: rows)
    }

    private var pixelMode: ChafaPixelMode {
        switch mode {
        case .kitty: CHAFA_PIXEL_MODE_KITTY
        case .sixel: CHAFA_PIXEL_MODE_SIXELS
        default: CHAFA_PIXEL_MODE_ITERM2
        }
    }

    /// chafa's fallback terminal info, made once: read-only after creation.
    private struct TermInfo: @unchecked Sendable {
        let pointer: OpaquePointer?
    }

    private static let termInfo = TermInfo(pointer: chafa_term_db_get_fallback_info(chafa_term_db_get_default()))
}
