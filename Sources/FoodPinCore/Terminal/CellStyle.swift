/// Colours and attributes shared by a run of cells.
package struct CellStyle: Hashable, Sendable {
    package var foreground: Color
    package var background: Color
    package var attributes: CellAttributes

    package init(foreground: Color = .default, background: Color = .default, attributes: CellAttributes = []) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }

    package static let plain = CellStyle()
}
