import CChafa

/// One libchafa canvas in symbol mode, owned and freed by this value.
final class ChafaDrawing {
    private let canvas: OpaquePointer
    private let colorMode: ColorMode

    init(columns: Int, rows: Int, colorMode: ColorMode) {
        self.colorMode = colorMode
        let config = chafa_canvas_config_new()
        let symbols = chafa_symbol_map_new()
        defer {
            chafa_symbol_map_unref(symbols)
            chafa_canvas_config_unref(config)
        }
        // Blocks (half, quarter, eighth), box-drawing borders and space: all one column wide.
        let tags = CHAFA_SYMBOL_TAG_BLOCK.rawValue | CHAFA_SYMBOL_TAG_BORDER.rawValue
            | CHAFA_SYMBOL_TAG_SPACE.rawValue | CHAFA_SYMBOL_TAG_HALF.rawValue
        chafa_symbol_map_add_by_tags(symbols, ChafaSymbolTags(rawValue: tags))
        chafa_symbol_map_remove_by_tags(symbols, CHAFA_SYMBOL_TAG_WIDE)
        chafa_canvas_config_set_symbol_map(config, symbols)
        chafa_canvas_config_set_geometry(config, Int32(columns), Int32(rows))
        chafa_canvas_config_set_canvas_mode(config, Self.mode(colorMode))
        chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_SYMBOLS)
        canvas = chafa_canvas_new(config)
    }

    deinit { chafa_canvas_unref(canvas) }

    static func mode(_ colorMode: ColorMode) -> ChafaCanvasMode {
        switch colorMode {
        case .colors256: CHAFA_CANVAS_MODE_INDEXED_240
        case .colors16: CHAFA_CANVAS_MODE_INDEXED_16
        case .colors8: CHAFA_CANVAS_MODE_INDEXED_8
        case .none: CHAFA_CANVAS_MODE_FGBG
        }
    }

    /// Draws unassociated 8-bit RGBA pixels, rows packed.
    func draw(_ pixels: UnsafePointer<UInt8>, width: Int, height: Int) {
        chafa_canvas_draw_all_pixels(
            canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, pixels, Int32(width), Int32(height), Int32(width * 4))
    }

    func cell(x: Int, y: Int) -> Cell {
        let code = chafa_canvas_get_char_at(canvas, Int32(x), Int32(y))
        var character: Character = " "
        if let scalar = Unicode.Scalar(code), code >= 0x20, DisplayWidth.of(Character(scalar)) == 1 {
            character = Character(scalar)
        }
        guard colorMode != .none else {
            return Cell(character)
        }
        var foreground: Int32 = -1
        var background: Int32 = -1
        chafa_canvas_get_raw_colors_at(canvas, Int32(x), Int32(y), &foreground, &background)
        return Cell(character, style: CellStyle(foreground: Self.color(foreground), background: Self.color(background)))
    }

    /// chafa's raw colours are palette indices in indexed modes; negative means transparent.
    private static func color(_ raw: Int32) -> Color {
        (0...255).contains(raw) ? .indexed(UInt8(raw)) : .default
    }
}
