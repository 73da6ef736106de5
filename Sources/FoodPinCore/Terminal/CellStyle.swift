/// Colours and attributes shared by a run of cells.
public struct CellStyle: Hashable, Sendable {
    public var foreground: Color
    public var background: Color
    public var attributes: CellAttributes

    public init(foreground: Color = .default, background: Color = .default, attributes: CellAttributes = []) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }

    public static let plain = CellStyle()
}
