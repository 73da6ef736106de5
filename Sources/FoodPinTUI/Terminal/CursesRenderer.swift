#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CNCurses
import FoodPinCore

/// Draws grids with ncurses, writing only the cells that changed since the last frame.
///
/// Wide characters go out as complex characters (`setcchar` + `mvwadd_wch`) and
/// their continuation cells are skipped; colours become extended pairs from
/// `alloc_pair`. As a defence in depth, a cell holding a control character is
/// drawn as `?`: only grid cells reach the screen, never raw text.
final class CursesRenderer {
    private let colorMode: ColorMode
    private let hasDefaultColors: Bool
    private var previous: Grid?
    private var pairs: [PairKey: Int32] = [:]

    private struct PairKey: Hashable {
        let foreground: Int
        let background: Int
    }

    init(colorMode: ColorMode, hasDefaultColors: Bool) {
        self.colorMode = colorMode
        self.hasDefaultColors = hasDefaultColors
    }

    /// Forgets the last frame, so the next one is drawn in full (after a resize).
    func invalidate() {
        previous = nil
    }

    /// Has ncurses redraw whole lines on the terminal (what is on them may have been painted
    /// over by a photo), and refreshes.
    func repaint(rows: Range<Int>) {
        guard !rows.isEmpty else { return }
        _ = wredrawln(cn_stdscr(), Int32(rows.lowerBound), Int32(rows.count))
        _ = wrefresh(cn_stdscr())
    }

    /// Draws `grid` at the top-left corner and refreshes the terminal.
    func draw(_ grid: Grid) {
        let width = min(grid.width, Int(cn_cols()))
        let height = min(grid.height, Int(cn_lines()))
        let last = previous.flatMap { $0.width == grid.width && $0.height == grid.height ? $0 : nil }
        if last == nil { _ = werase(cn_stdscr()) }

        for y in 0..<height {
            for x in 0..<width {
                let index = y * grid.width + x
                let cell = grid.cells[index]
                if let last, last.cells[index] == cell { continue }
                if cell.isContinuation {
                    // Covered by the wide character to its left; an orphan shows as a blank.
                    if x > 0, grid.cells[index - 1].width == 2 { continue }
                    put(Cell(" ", style: cell.style), x: x, y: y)
                    continue
                }
                if cell.width == 2, x + 1 >= width {
                    put(Cell(" ", style: cell.style), x: x, y: y)
                    continue
                }
                put(cell, x: x, y: y)
            }
        }
        _ = wrefresh(cn_stdscr())
        previous = grid
    }

    private func put(_ cell: Cell, x: Int, y: Int) {
        var text = Self.glyph(for: cell)
        let attributes = attributes(for: cell.style.attributes)
        let pair = pair(for: cell.style)
        if cn_put(Int32(y), Int32(x), &text, attributes, pair) == ERR {
            var fallback: [wchar_t] = [wchar_t(UInt8(ascii: "?")), 0]
            _ = cn_put(Int32(y), Int32(x), &fallback, attributes, pair)
        }
        // A wide cell whose character the C library thinks narrow: blank the right half
        // so the columns after it still line up.
        if cell.width == 2, text.count > 1, cn_wcwidth(text[0]) == 1 {
            var blank: [wchar_t] = [wchar_t(UInt8(ascii: " ")), 0]
            _ = cn_put(Int32(y), Int32(x + 1), &blank, attributes, pair)
        }
    }

    /// The NUL-terminated wide string for a cell: its scalars, or `?` when any is a
    /// control or formatting character, or when the C library's width disagrees
    /// in a way that would shift the columns after it.
    static func glyph(for cell: Cell) -> [wchar_t] {
        let question: [wchar_t] = [wchar_t(UInt8(ascii: "?")), 0]
        let scalars = Array(cell.character.unicodeScalars)
        guard let first = scalars.first else { return question }
        for scalar in scalars where !isDrawable(scalar) { return question }
        let firstWidth = cn_wcwidth(wchar_t(bitPattern: first.value))
        if firstWidth <= 0 || firstWidth > max(cell.width, 1) { return question }
        // setcchar takes one spacing character followed by combining ones; a sequence it
        // cannot hold (an emoji ZWJ sequence) degrades to its first character.
        var text = [wchar_t(bitPattern: first.value)]
        let rest = scalars.dropFirst()
        if rest.count < Int(CCHARW_MAX), rest.allSatisfy({ cn_wcwidth(wchar_t(bitPattern: $0.value)) == 0 }) {
            text += rest.map { wchar_t(bitPattern: $0.value) }
        }
        return text + [0]
    }

    /// False for C0/C1 controls, DEL, and format characters other than the joiners emoji need.
    static func isDrawable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .surrogate, .unassigned, .lineSeparator, .paragraphSeparator:
            return false
        case .format:
            return scalar.value == 0x200D || scalar.value == 0x200C
        default:
            return true
        }
    }

    private func attributes(for attributes: CellAttributes) -> attr_t {
        var value: attr_t = 0
        if attributes.contains(.bold) { value |= cn_a_bold() }
        if attributes.contains(.dim) { value |= cn_a_dim() }
        if attributes.contains(.italic) { value |= cn_a_italic() }
        if attributes.contains(.underline) { value |= cn_a_underline() }
        if attributes.contains(.reverse) { value |= cn_a_reverse() }
        return value
    }

    private func pair(for style: CellStyle) -> Int32 {
        guard let fg = ColorPalette.terminalIndex(for: style.foreground, mode: colorMode),
              let bg = ColorPalette.terminalIndex(for: style.background, mode: colorMode)
        else { return 0 }
        let key = PairKey(
            foreground: fg < 0 && !hasDefaultColors ? 7 : fg,
            background: bg < 0 && !hasDefaultColors ? 0 : bg
        )
        if key.foreground < 0, key.background < 0 { return 0 }
        if let pair = pairs[key] { return pair }
        // alloc_pair recycles the least recently used pair once all are taken;
        // forget the cache before that can make an entry stale.
        if pairs.count >= Int(cn_color_pairs()) - 2 { pairs.removeAll() }
        let pair = max(0, alloc_pair(Int32(key.foreground), Int32(key.background)))
        pairs[key] = pair
        return pair
    }
}
