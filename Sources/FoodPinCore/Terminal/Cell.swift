/// One terminal cell: a grapheme, its style, and whether it continues a wide character.
///
/// A wide character (CJK, most emoji) occupies two cells: the first holds the
/// character with `width == 2`, the second is a continuation with `width == 0`.
public struct Cell: Hashable, Sendable {
    public var character: Character
    public var width: Int
    public var style: CellStyle

    public init(_ character: Character = " ", width: Int = 1, style: CellStyle = .plain) {
        self.character = character
        self.width = width
        self.style = style
    }

    public static let blank = Cell()
    /// The right half of a wide character.
    public static func continuation(style: CellStyle) -> Cell { Cell(" ", width: 0, style: style) }

    public var isContinuation: Bool { width == 0 }
}
