/// The view's styles for one colour mode. Fewer colours fall back to attributes;
/// `.none` (mono, `NO_COLOR`) uses attributes only and never a colour.
struct Theme {
    var title: CellStyle
    var status: CellStyle
    var error: CellStyle
    var live: CellStyle
    var selected: CellStyle
    var marker: CellStyle
    var name: CellStyle
    var text: CellStyle
    var dim: CellStyle
    var key: CellStyle
    var placeholder: CellStyle
    var inlineError: CellStyle
    var field: CellStyle
    var focusedField: CellStyle
    var cursor: CellStyle
    var button: CellStyle
    var focusedButton: CellStyle
    var mode: ColorMode

    init(_ mode: ColorMode) {
        self.mode = mode
        func style(_ fg: Color = .default, _ bg: Color = .default, attributes: CellAttributes = []) -> CellStyle {
            CellStyle(foreground: fg, background: bg, attributes: attributes)
        }
        func style(_ fg: Color, _ bg: Color, _ attributes: CellAttributes) -> CellStyle {
            CellStyle(foreground: fg, background: bg, attributes: attributes)
        }
        text = .plain
        cursor = style(attributes: [.reverse])
        button = style(attributes: [.bold])
        focusedButton = style(attributes: [.bold, .reverse])
        switch mode {
        case .colors256:
            title = style(.indexed(255), .indexed(24), [.bold])
            status = style(.indexed(250))
            error = style(.indexed(231), .indexed(124), [.bold])
            live = style(.indexed(16), .indexed(114), [.bold])
            selected = style(.default, .indexed(237))
            marker = style(.indexed(214), .indexed(237), [.bold])
            name = style(attributes: [.bold])
            dim = style(.indexed(245))
            key = style(.indexed(214), attributes: [.bold])
            placeholder = style(.indexed(242), .indexed(235))
            inlineError = style(.indexed(203), attributes: [.bold])
            field = style(.default, .indexed(236))
            focusedField = style(.indexed(231), .indexed(24))
        case .colors16:
            title = style(.indexed(15), .indexed(4), [.bold])
            status = style()
            error = style(.indexed(15), .indexed(1), [.bold])
            live = style(.indexed(0), .indexed(2), [.bold])
            selected = style(.default, .indexed(8))
            marker = style(.indexed(11), .indexed(8), [.bold])
            name = style(attributes: [.bold])
            dim = style(.indexed(8))
            key = style(.indexed(11), attributes: [.bold])
            placeholder = style(.indexed(8))
            inlineError = style(.indexed(9), attributes: [.bold])
            field = style(attributes: [.underline])
            focusedField = style(.indexed(15), .indexed(4))
        case .colors8:
            title = style(.indexed(0), .indexed(6), [.bold])
            status = style()
            error = style(.indexed(7), .indexed(1), [.bold])
            live = style(.indexed(0), .indexed(2), [.bold])
            selected = style(.indexed(7), .indexed(4))
            marker = style(.indexed(3), .indexed(4), [.bold])
            name = style(attributes: [.bold])
            dim = style(attributes: [.dim])
            key = style(.indexed(3), attributes: [.bold])
            placeholder = style(attributes: [.dim])
            inlineError = style(.indexed(1), attributes: [.bold])
            field = style(attributes: [.underline])
            focusedField = style(.indexed(7), .indexed(4))
        case .none:
            title = style(attributes: [.reverse, .bold])
            status = style()
            error = style(attributes: [.reverse, .bold])
            live = style(attributes: [.bold, .underline])
            selected = style(attributes: [.reverse])
            marker = style(attributes: [.reverse, .bold])
            name = style(attributes: [.bold])
            dim = style(attributes: [.dim])
            key = style(attributes: [.bold])
            placeholder = style(attributes: [.dim])
            inlineError = style(attributes: [.bold, .underline])
            field = style(attributes: [.underline])
            focusedField = style(attributes: [.underline, .bold])
        }
    }

    /// `base` drawn on a selected row: the row's background (and reverse in mono) wins.
    func onSelected(_ base: CellStyle) -> CellStyle {
        var style = base
        style.background = selected.background
        if selected.foreground != .default, base.foreground == .default { style.foreground = selected.foreground }
        style.attributes.formUnion(selected.attributes)
        return style
    }

    /// A thumbnail cell as it may be shown in this mode (mono keeps only the glyph and attributes).
    func thumbnailCell(_ cell: Cell) -> Cell {
        guard mode == .none else { return cell }
        var cell = cell
        cell.style.foreground = .default
        cell.style.background = .default
        return cell
    }
}
