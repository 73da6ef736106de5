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
/// - kitty: images live on their own layer, so text writes do not erase them. Each photo is
///   transmitted once with an image ID (`a=T,i=…,q=2`: displayed, kept, no reply); when the set of
///   placements changes, every placement is deleted (`a=d,d=a`, the data stays) and the current
///   ones are placed again by ID (`a=p,i=…`), a few dozen bytes each. The terminal keeps the data
///   of the last ``kittyKept`` photos; older ones are freed (`a=d,d=I,i=…`).
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
    /// kitty: a photo transmitted and still kept by the terminal, held weakly (the thumbnail
    /// cache owns the bytes; a photo it dropped is never placed again and ages out).
    private struct KittyImage {
        weak var image: PixelImage?
        let id: UInt32
    }

    /// kitty: the photos the terminal keeps, oldest first.
    private var kittyIDs: [KittyImage] = []
    private var nextKittyID: UInt32 = 1
    /// How many transmitted photos the terminal keeps (a few screens of thumbnails and a detail photo).
    static let kittyKept = 96

    init(mode: ImageMode) {
        self.mode = mode
    }

    /// Forget what is on screen (after a resize or a full redraw): everything is placed again.
    func invalidate() {
        if mode == .kitty, !shown.isEmpty { write(Self.deletePlacements) }
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
            var output = shown.isEmpty ? [] : Self.deletePlacements
            for placement in wanted { output += kittyPlaced(placement) }
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

    /// Removes every photo and frees the terminal's copies (on quit).
    func clear() {
        if mode == .kitty, !shown.isEmpty || !kittyIDs.isEmpty { write(Self.deleteAll) }
        shown = []
        kittyIDs = []
    }

    /// kitty: the photo placed by ID if the terminal has it, else transmitted with a new ID.
    private func kittyPlaced(_ placement: ImagePlacement) -> [UInt8] {
        let move = Array("\u{1B}7\u{1B}[\(placement.y + 1);\(placement.x + 1)H".utf8)
        let restore = Array("\u{1B}8".utf8)
        if let index = kittyIDs.firstIndex(where: { $0.image === placement.image }) {
            let kept = kittyIDs.remove(at: index)
            kittyIDs.append(kept)
            return move + Array("\u{1B}_Ga=p,i=\(kept.id),q=2\u{1B}\\".utf8) + restore
        }
        let id = nextKittyID
        nextKittyID = nextKittyID == UInt32.max ? 1 : nextKittyID + 1
        var output: [UInt8] = []
        if kittyIDs.count >= Self.kittyKept {
            let oldest = kittyIDs.removeFirst()
            output += Array("\u{1B}_Ga=d,d=I,i=\(oldest.id),q=2\u{1B}\\".utf8)
        }
        kittyIDs.append(KittyImage(image: placement.image, id: id))
        return output + move + Self.withID(placement.image.bytes, id: id) + restore
    }

    /// chafa's kitty sequence with an image ID and replies off: `\e_Ga=T,` becomes `\e_Ga=T,i=7,q=2,`.
    static func withID(_ bytes: [UInt8], id: UInt32) -> [UInt8] {
        let prefix = Array("\u{1B}_Ga=T,".utf8)
        guard bytes.starts(with: prefix) else { return bytes }
        return prefix + Array("i=\(id),q=2,".utf8) + bytes[prefix.count...]
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
    static let deleteAll = Array("\u{1B}_Ga=d,d=A,q=2\u{1B}\\".utf8)
    /// kitty: delete all placements, keeping the data for placing again by ID.
    static let deletePlacements = Array("\u{1B}_Ga=d,d=a,q=2\u{1B}\\".utf8)

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
