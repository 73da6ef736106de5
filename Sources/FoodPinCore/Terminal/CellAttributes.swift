/// Text attributes of one cell.
package struct CellAttributes: OptionSet, Hashable, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    package static let bold = CellAttributes(rawValue: 1 << 0)
    package static let dim = CellAttributes(rawValue: 1 << 1)
    package static let italic = CellAttributes(rawValue: 1 << 2)
    package static let underline = CellAttributes(rawValue: 1 << 3)
    package static let reverse = CellAttributes(rawValue: 1 << 4)
}
