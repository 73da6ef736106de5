/// Writes a grid's ``LinkSpan``s as OSC 8 hyperlinks over a text frame the adapter has drawn,
/// the way photos are placed after it: ncurses knows nothing of links, so each span's cells are
/// written again, the same glyphs in the same style, between `ESC ] 8 ; ; target ESC \` and
/// `ESC ] 8 ; ; ESC \`, inside save and restore cursor (which keep ncurses' cursor and colours right).
///
/// ```swift
/// let writer = HyperlinkWriter(colorMode: .colors256)
/// let repaint = HyperlinkWriter.rowsToRepaint(previous: last, current: grid)   // links that left
/// for span in HyperlinkWriter.spansToWrite(previous: last, current: grid, repainted: repaint) {
///     output += writer.bytes(for: span, in: grid)
/// }
/// ```
///
/// The target is a ``Hyperlink``'s (printable ASCII, checked again here) and the glyphs are the
/// grid's sanitized cells, a control or format character among them written as `?`: record text
/// never becomes a control sequence.
package struct HyperlinkWriter: Sendable {
    package let colorMode: ColorMode

    package init(colorMode: ColorMode) {
        self.colorMode = colorMode
    }

    /// Rows that held a link the current frame no longer has at the same place: a terminal keeps
    /// a cell's link until the cell is written again, so the adapter must repaint those rows.
    package static func rowsToRepaint(previous: Grid?, current: Grid) -> Set<Int> {
        guard let previous, previous.width == current.width, previous.height == current.height else { return [] }
        let kept = Set(current.links)
        return Set(previous.links.filter { !kept.contains($0) }.map(\.y))
    }

    /// The spans to write: new ones, those on repainted rows, and those whose cells changed (the
    /// adapter wrote them again without the link).
    package static func spansToWrite(previous: Grid?, current: Grid, repainted: Set<Int>) -> [LinkSpan] {
        guard let previous, previous.width == current.width, previous.height == current.height else { return current.links }
        let shown = Set(previous.links)
        return current.links.filter { span in
            guard shown.contains(span), !repainted.contains(span.y) else { return true }
            return (span.x..<(span.x + span.width)).contains { x in
                x >= 0 && x < current.width && previous[x, span.y] != current[x, span.y]
            }
        }
    }

    /// Save cursor, move to the span, open the link, the cells' style and glyphs, close the link,
    /// restore the cursor. Empty for a span off the grid or a target that is not printable ASCII.
    package func bytes(for span: LinkSpan, in grid: Grid) -> [UInt8] {
        guard span.y >= 0, span.y < grid.height, span.x >= 0, span.width > 0,
              span.link.target.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { return [] }
        var out = "\u{1B}7\u{1B}[\(span.y + 1);\(span.x + 1)H\u{1B}]8;;\(span.link.target)\u{1B}\\"
        var style: CellStyle?
        for x in span.x..<min(grid.width, span.x + span.width) {
            let cell = grid[x, span.y]
            if cell.isContinuation { continue }
            if cell.width == 2, x + 1 >= grid.width { break }
            if cell.style != style {
                out += sgr(cell.style)
                style = cell.style
            }
            out += Self.glyph(cell.character)
        }
        out += "\u{1B}]8;;\u{1B}\\\u{1B}8"
        return Array(out.utf8)
    }

    /// The cell's character, or `?` when a scalar of it is a control or format character.
    static func glyph(_ character: Character) -> String {
        for scalar in character.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .surrogate, .unassigned, .lineSeparator, .paragraphSeparator, .privateUse: return "?"
            case .format where scalar.value != 0x200D && scalar.value != 0x200C: return "?"
            default: continue
            }
        }
        return String(character)
    }

    /// `ESC [ 0 ; … m` for a style: attributes, then colours as the mode shows them.
    func sgr(_ style: CellStyle) -> String {
        var codes = ["0"]
        let attributes: [(CellAttributes, String)] = [(.bold, "1"), (.dim, "2"), (.italic, "3"), (.underline, "4"), (.reverse, "7")]
        for (attribute, code) in attributes where style.attributes.contains(attribute) { codes.append(code) }
        if let fg = ColorPalette.terminalIndex(for: style.foreground, mode: colorMode), fg >= 0 {
            codes.append(fg < 8 ? "\(30 + fg)" : fg < 16 ? "\(90 + fg - 8)" : "38;5;\(fg)")
        }
        if let bg = ColorPalette.terminalIndex(for: style.background, mode: colorMode), bg >= 0 {
            codes.append(bg < 8 ? "\(40 + bg)" : bg < 16 ? "\(100 + bg - 8)" : "48;5;\(bg)")
        }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }
}
