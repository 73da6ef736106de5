/// One terminal cell: a grapheme, its style, and whether it continues a wide character.
///
/// A wide character (CJK, most emoji) occupies two cells: the first holds the
/// character with `width == 2`, the second is a continuation with `width == 0`.
package struct Cell: Hashable, Sendable {
    package var character: Character
    package var width: Int
    package var style: CellStyle

    package init(_ character: Character = " ", width: Int = 1, style: CellStyle = .plain) {
        self.character = character
        self.width = width
        self.style = style
    }

    package static let blank = Cell()
    /// The right half of a wide character.
    package static func continuation(style: CellStyle) -> Cell { Cell(" ", width: 0, style: style) }

    package var isContinuation: Bool { width == 0 }
}
