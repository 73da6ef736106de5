extension Renderer {
    static let formLabelWidth = 13
    static let descriptionRows = 4

    mutating func renderForm() {
        let isEditing = state.form?.isEditing == true
        renderTitle(isEditing ? "FoodPin · Edit Restaurant" : "FoodPin · New Restaurant")
        renderHelpBar(isEditing
            ? [("Tab", "next"), ("S-Tab", "previous"), ("^S", "save"), ("^X", "remove photo"), ("Esc", "cancel")]
            : [("Tab", "next"), ("S-Tab", "previous"), ("^S", "save"), ("Esc", "cancel")])
        guard let form = state.form else { return }

        if form.conflict != nil {
            banner((unicode ? "✗ " : "! ") + TextSanitizer.line(form.conflictMessage) + ": k keeps theirs, o overwrites with mine, Esc edits",
                   style: theme.error, y: 1)
        } else if form.isSaving {
            grid.put(spinner + "Saving…", x: 1, y: 1, style: theme.status)
        } else if form.isConfirmingDiscard {
            banner("Discard this restaurant? y discards it, any other key keeps editing", style: theme.error, y: 1)
        } else if let error = form.saveError {
            banner((unicode ? "✗ " : "! ") + TextSanitizer.line(error), style: theme.error, y: 1)
        }

        // Lay out every line of the form, then scroll so the focused field shows.
        let inputX = 1 + Self.formLabelWidth
        let inputWidth = max(8, min(width - inputX - 1, 60))
        var lines: [FormLine] = []
        for field in RestaurantForm.Field.allCases where field.isTextField {
            let rows = field == .description ? Self.descriptionRows : 1
            for row in 0..<rows { lines.append(FormLine(field: field, kind: .input(row: row))) }
            if field == .image, form.previewPath != nil {
                for row in 0..<RestaurantForm.previewSize.rows { lines.append(FormLine(field: field, kind: .preview(row: row))) }
            }
            if field == .image {
                for candidate in form.completions.prefix(5) { lines.append(FormLine(field: field, kind: .note(candidate))) }
                if form.isEditing, form.text(.image).isEmpty {
                    let note = form.removesImage ? "the photo is removed on save (^X keeps it)"
                        : "empty keeps the photo; a path replaces it, ^X removes it"
                    lines.append(FormLine(field: field, kind: .note(note)))
                }
            }
            if let theirs = form.conflict, let value = Self.value(of: field, in: theirs), value != form.text(field) {
                lines.append(FormLine(field: field, kind: .note("theirs: " + value)))
            }
            if let error = form.errors[field] { lines.append(FormLine(field: field, kind: .error(error))) }
        }
        lines.append(FormLine(field: .save, kind: .blank))
        lines.append(FormLine(field: .save, kind: .buttons))

        let top = Layout.listTop
        let room = height - top - 1
        let focusLines = lines.indices.filter { lines[$0].field == form.focus }
        var offset = 0
        if let last = focusLines.last, last >= room { offset = last - room + 1 }
        if let first = focusLines.first, first < offset { offset = first }

        for (slot, line) in lines.dropFirst(offset).prefix(room).enumerated() {
            let y = top + slot
            let focused = line.field == form.focus
            switch line.kind {
            case .input(let row):
                if row == 0 {
                    let mark = focused ? (unicode ? "›" : ">") : " "
                    grid.put(mark + line.field.label, x: 0, y: y, style: focused ? theme.key : theme.text)
                }
                let style = focused ? theme.focusedField : theme.field
                grid.fill(x: inputX, y: y, width: inputWidth, height: 1, style: style)
                if let editor = form.editor(line.field) {
                    if editor.isMultiline {
                        renderMultiline(editor, row: row, x: inputX, y: y, width: inputWidth, style: style, showCursor: focused)
                    } else {
                        renderSingleLine(editor, x: inputX, y: y, width: inputWidth, style: style, showCursor: focused)
                    }
                }
            case .note(let text):
                grid.put(TextSanitizer.line(text), x: inputX + 1, y: y, style: theme.dim, maxX: inputX + inputWidth)
            case .error(let text):
                grid.put((unicode ? "↳ " : "-> ") + TextSanitizer.line(text), x: inputX, y: y, style: theme.inlineError)
            case .preview(let row):
                if row == 0 || slot == 0 {
                    let size = RestaurantForm.previewSize
                    let visible = ThumbnailSize(columns: size.columns, rows: size.rows - row)
                    if row == 0 {
                        renderImage(form.preview, size: visible, x: inputX, y: y, selected: false)
                    } else {
                        renderImage(nil, size: visible, x: inputX, y: y, selected: false)
                    }
                }
            case .blank:
                break
            case .buttons:
                let saveStyle = form.focus == .save ? theme.focusedButton : theme.button
                let cancelStyle = form.focus == .cancel ? theme.focusedButton : theme.button
                let x = grid.put("[ Save ]", x: inputX, y: y, style: saveStyle)
                grid.put("[ Cancel ]", x: x + 2, y: y, style: cancelStyle)
            }
        }
    }

    /// A restaurant's value for a text field (`nil` for the image, which has no text).
    static func value(of field: RestaurantForm.Field, in restaurant: Restaurant) -> String? {
        switch field {
        case .name: restaurant.name
        case .type: restaurant.type
        case .location: restaurant.location
        case .phone: restaurant.phone
        case .description: restaurant.description
        case .image, .save, .cancel: nil
        }
    }

    /// One line of text, scrolled sideways so the cursor stays in view.
    mutating func renderSingleLine(_ editor: LineEditor, x: Int, y: Int, width: Int, style: CellStyle, showCursor: Bool) {
        let characters = editor.characters.map { TextSanitizer.line(String($0)) }
        let widths = characters.map(DisplayWidth.of)
        var start = 0
        var span = widths[..<editor.cursor].reduce(0, +) + 1
        while span > width, start < editor.cursor {
            span -= widths[start]
            start += 1
        }
        var column = x
        for index in start...characters.count {
            if index == characters.count {
                if showCursor, index == editor.cursor, column < x + width { grid.put(" ", x: column, y: y, style: theme.cursor) }
                break
            }
            if column + widths[index] > x + width { break }
            let cellStyle = showCursor && index == editor.cursor ? theme.cursor : style
            column = grid.put(characters[index], x: column, y: y, style: cellStyle)
        }
    }

    /// One visual row of a wrapped multi-line editor, scrolled so the cursor's row shows.
    mutating func renderMultiline(_ editor: LineEditor, row: Int, x: Int, y: Int, width: Int, style: CellStyle, showCursor: Bool) {
        // Break the text into visual rows of (index, text) pairs, noting the cursor's row.
        var rows: [[(index: Int, text: String)]] = [[]]
        var rowWidth = 0
        var cursorRow = 0
        for (index, character) in editor.characters.enumerated() {
            if index == editor.cursor { cursorRow = rows.count - 1 }
            if character == "\n" {
                rows[rows.count - 1].append((index, " "))
                rows.append([])
                rowWidth = 0
                continue
            }
            let text = TextSanitizer.line(String(character))
            let w = DisplayWidth.of(text)
            if rowWidth + w > width - 1 {
                rows.append([])
                rowWidth = 0
                if index == editor.cursor { cursorRow = rows.count - 1 }
            }
            rows[rows.count - 1].append((index, text))
            rowWidth += w
        }
        if editor.cursor == editor.characters.count { cursorRow = rows.count - 1 }
        let first = max(0, cursorRow - Self.descriptionRows + 1)
        let shown = first + row
        guard shown < rows.count else { return }
        var column = x
        for item in rows[shown] {
            let cellStyle = showCursor && item.index == editor.cursor ? theme.cursor : style
            column = grid.put(item.text, x: column, y: y, style: cellStyle)
        }
        if showCursor, editor.cursor == editor.characters.count, shown == cursorRow {
            grid.put(" ", x: column, y: y, style: theme.cursor)
        }
    }
}

/// One line of the form's layout.
struct FormLine {
    enum Kind {
        case input(row: Int)
        case note(String)
        case preview(row: Int)
        case error(String)
        case blank
        case buttons
    }

    var field: RestaurantForm.Field
    var kind: Kind
}
