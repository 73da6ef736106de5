import CVipsShim
import Synchronization

/// One libchafa canvas in symbol mode, borrowed from a small process-wide pool and
/// returned to it when this value goes away.
///
/// Making a canvas prepares its symbol map (~0.2 ms, a third of a list row's drawing), while
/// `chafa_canvas_draw_all_pixels` redraws every cell, so a canvas of the same geometry and mode
/// can be reused. Each canvas is used by one drawing at a time: the pool hands it out exclusively.
final class ChafaDrawing {
    struct Key: Hashable, Sendable {
        var columns: Int
        var rows: Int
        var colorMode: ColorMode
    }

    /// A canvas owned by the pool; only ever touched by the one drawing that took it.
    ///
    /// `@unchecked` because it is a C pointer: `OpaquePointer` is not `Sendable`, and the compiler
    /// cannot see that a canvas moves between the pool and one drawing at a time (taken out of
    /// `idle` under its lock in `init`, put back under it in `deinit`). Without it, Swift 6 refuses
    /// both moves ("returning a task-isolated value as a 'sending' result").
    private struct PooledCanvas: @unchecked Sendable {
        let key: Key
        let pointer: OpaquePointer
    }

    /// Idle canvases, oldest first. A few per geometry cover both cores' renders at once.
    private static let idle = Mutex<[PooledCanvas]>([])
    static let poolLimit = 16

    private let canvas: PooledCanvas
    private let colorMode: ColorMode

    init(columns: Int, rows: Int, colorMode: ColorMode) {
        self.colorMode = colorMode
        let key = Key(columns: columns, rows: rows, colorMode: colorMode)
        let reused: PooledCanvas? = Self.idle.withLock { idle in
            guard let index = idle.lastIndex(where: { $0.key == key }) else { return nil }
            return idle.remove(at: index)
        }
        canvas = reused ?? PooledCanvas(key: key, pointer: Self.makeCanvas(key))
    }

    deinit {
        let evicted: PooledCanvas? = Self.idle.withLock { idle in
            idle.append(canvas)
            return idle.count > Self.poolLimit ? idle.removeFirst() : nil
        }
        if let evicted { cchafa_canvas_unref(evicted.pointer) }
    }

    /// A canvas from libchafa, which the first canvas loads (after libvips: ``Vips/start()``, which every render calls first).
    private static func makeCanvas(_ key: Key) -> OpaquePointer {
        guard let canvas = cchafa_canvas_new(Int32(key.columns), Int32(key.rows), mode(key.colorMode)) else {
            preconditionFailure("libchafa could not be loaded: \(cvips_load_error().map { String(cString: $0) } ?? "call Vips.start() before drawing")")
        }
        return canvas
    }

    static func mode(_ colorMode: ColorMode) -> CChafaMode {
        switch colorMode {
        case .colors256: CCHAFA_MODE_INDEXED_240
        case .colors16: CCHAFA_MODE_INDEXED_16
        case .colors8: CCHAFA_MODE_INDEXED_8
        case .none: CCHAFA_MODE_FGBG
        }
    }

    /// Draws 8-bit pixels, rows packed: RGB when `bands` is 3, unassociated RGBA when 4.
    /// libchafa resamples them to the canvas (8×8 pixels per cell) as it draws.
    func draw(_ pixels: UnsafePointer<UInt8>, width: Int, height: Int, bands: Int) {
        cchafa_canvas_draw(canvas.pointer, pixels, Int32(width), Int32(height), Int32(bands))
    }

    func cell(x: Int, y: Int) -> Cell {
        let code = cchafa_canvas_char_at(canvas.pointer, Int32(x), Int32(y))
        var character: Character = " "
        if let scalar = Unicode.Scalar(code), code >= 0x20, DisplayWidth.of(Character(scalar)) == 1 {
            character = Character(scalar)
        }
        guard colorMode != .none else {
            return Cell(character)
        }
        var foreground: Int32 = -1
        var background: Int32 = -1
        cchafa_canvas_colors_at(canvas.pointer, Int32(x), Int32(y), &foreground, &background)
        return Cell(character, style: CellStyle(foreground: Self.color(foreground), background: Self.color(background)))
    }

    /// chafa's raw colours are palette indices in indexed modes; negative means transparent.
    private static func color(_ raw: Int32) -> Color {
        (0...255).contains(raw) ? .indexed(UInt8(raw)) : .default
    }
}
