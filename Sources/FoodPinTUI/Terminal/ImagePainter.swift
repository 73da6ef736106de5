#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CNCurses
import FoodPinCore

/// Places a grid's pixel photos after ncurses has drawn the text frame, and removes them
/// when they scroll away, the view changes or the terminal resizes: no ghost images.
///
/// - kitty: images live on their own layer, so text writes do not erase them. When the set of
///   placements changes, every placement is deleted (`a=d,d=A`) and the current ones are placed.
/// - sixel and iTerm2: pixels replace the cells' text. A photo that left is erased by having
///   ncurses repaint its lines; a photo is (re)drawn when it is new, when its lines were
///   repainted, or when the frame changed a cell under it.
///
/// Each photo is written as save cursor, move to its cell, the sequence, restore cursor, so
/// ncurses' idea of the cursor stays right.
final class ImagePainter {
    let mode: ImageMode
    private var shown: [ImagePlacement] = []
    private var previous: Grid?
    /// Bytes written for photos, for `--debug` and the benchmark.
    private(set) var bytesWritten = 0

    init(mode: ImageMode) {
        self.mode = mode
    }

    /// Forget what is on screen (after a resize or a full redraw): everything is placed again.
    func invalidate() {
        if mode == .kitty, !shown.isEmpty { write(Self.deleteAll) }
        shown = []
        previous = nil
    }

    /// Called after the text frame of `grid` was drawn. `repaint` makes ncurses redraw whole
    /// lines (erasing sixel or iTerm2 pixels on them).
    func paint(_ grid: Grid, repaint: (Range<Int>) -> Void) {
        guard mode.usesPixels else { return }
        let wanted = grid.images
        defer {
            shown = wanted
            previous = grid
        }
        if mode == .kitty {
            guard wanted != shown else { return }
            var output = shown.isEmpty ? [] : Self.deleteAll
            for placement in wanted { output += Self.placed(placement) }
            write(output)
            return
        }
        // Sixel and iTerm2: erase what left by repainting its lines, then draw what needs it.
        let gone = shown.filter { !wanted.contains($0) }
        var repainted = Set<Int>()
        for placement in gone {
            let rows = max(0, placement.y)..<min(grid.height, placement.y + placement.rows)
            if !rows.isEmpty { repaint(rows) }
            repainted.formUnion(rows)
        }
        var output: [UInt8] = []
        for placement in wanted {
            let onLines = (placement.y..<(placement.y + placement.rows)).contains { repainted.contains($0) }
            if !shown.contains(placement) || onLines || textChanged(under: placement, in: grid) {
                output += Self.placed(placement)
            }
        }
        if !output.isEmpty { write(output) }
    }

    /// Removes every photo (on quit).
    func clear() {
        if mode == .kitty, !shown.isEmpty { write(Self.deleteAll) }
        shown = []
    }

    private func textChanged(under placement: ImagePlacement, in grid: Grid) -> Bool {
        guard let previous, previous.width == grid.width, previous.height == grid.height else { return true }
        for y in max(0, placement.y)..<min(grid.height, placement.y + placement.rows) {
            for x in max(0, placement.x)..<min(grid.width, placement.x + placement.columns)
            where previous[x, y] != grid[x, y] {
                return true
            }
        }
        return false
    }

    /// kitty: delete all placements and free their data.
    static let deleteAll = Array("\u{1B}_Ga=d,d=A\u{1B}\\".utf8)

    /// Save the cursor, move to the photo's top-left cell, draw it, restore the cursor.
    static func placed(_ placement: ImagePlacement) -> [UInt8] {
        Array("\u{1B}7\u{1B}[\(placement.y + 1);\(placement.x + 1)H".utf8) + placement.image.bytes + Array("\u{1B}8".utf8)
    }

    private func write(_ bytes: [UInt8]) {
        // ncurses has flushed its frame (wrefresh); the photos go after it on the same descriptor.
        _ = fflush(nil)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            offset += written
        }
        bytesWritten += bytes.count
    }
}
