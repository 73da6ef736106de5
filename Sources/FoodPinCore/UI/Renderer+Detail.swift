extension Renderer {
    mutating func renderDetail(id: String) {
        guard let restaurant = state.list.restaurant(withID: id) else {
            renderTitle("FoodPin")
            grid.put("This restaurant is gone — Esc goes back", x: 1, y: 3, style: theme.dim)
            return
        }
        let name = TextSanitizer.line(restaurant.name)
        renderTitle("FoodPin · " + name)
        renderStatusLine()
        renderHelpBar([("Esc", "back"), ("j/k", "scroll"), ("o", "map"), ("d", "delete"), ("e", "edit"), ("r", "refresh"), ("?", "help")])

        let size = state.detailImageSize
        let top = Layout.listTop
        if state.config.showsImages {
            renderThumbnail(ThumbnailKey(recordID: id, size: size), x: 1, y: top, selected: false)
        }
        let (textX, textY, textWidth) = Layout.detailText(width: width, height: height, showsImages: state.config.showsImages)
        let when = RelativeTime.describe(restaurant.createdAt, now: state.now)
        let fields: [(String, String)] = [
            ("Type", restaurant.type), ("Location", restaurant.location), ("Phone", restaurant.phone),
            ("Added", "\(when) by \(restaurant.createdBy)"),
        ]
        let links: [String: Hyperlink?] = state.config.showsLinks
            ? ["Location": Hyperlink.map(restaurant.location), "Phone": Hyperlink.phone(restaurant.phone)] : [:]
        var lines: [(text: String, style: CellStyle, link: Hyperlink?, skip: Int)] =
            TextLayout.wrap([name], width: textWidth).map { ($0, theme.name, nil, 0) }
        for (label, value) in fields {
            let text = label + ": " + (value.isEmpty ? "—" : TextSanitizer.line(value))
            // The value's cells are the link: after the label on its first line, whole lines after.
            let link = links[label] ?? nil
            for (i, line) in TextLayout.wrap([text], width: textWidth).enumerated() {
                let skip = i == 0 && link != nil ? min(DisplayWidth.of(label + ": "), DisplayWidth.of(line)) : 0
                lines.append((line, theme.text, link, skip))
            }
        }
        lines.append(("", theme.text, nil, 0))
        let description = Layout.detailDescriptionLines(restaurant, textWidth: textWidth)
        // The link notice (a URL to copy where nothing opens it) across the whole width, above the keys.
        let notice = state.linkNotice.map { Array(TextLayout.wrap([TextSanitizer.line($0)], width: max(1, width - 2)).prefix(4)) } ?? []
        let bottom = height - 1 - notice.count
        var y = textY
        for line in lines where y < bottom {
            if let link = line.link {
                let end = grid.put(line.text, x: textX, y: y, style: line.style)
                let start = textX + line.skip
                // Underlined where the terminal shows links, so they look like links.
                for column in start..<end { grid[column, y].style.attributes.insert(.underline) }
                if end > start { grid.links.append(LinkSpan(x: start, y: y, width: end - start, link: link)) }
            } else {
                grid.put(line.text, x: textX, y: y, style: line.style)
            }
            y += 1
        }
        let room = bottom - y
        let start = max(0, min(state.detailScroll, description.count - room))
        for line in description.dropFirst(start).prefix(max(0, room)) {
            grid.put(line, x: textX, y: y, style: theme.text)
            y += 1
        }
        for (i, line) in notice.enumerated() {
            grid.fill(x: 0, y: bottom + i, width: width, height: 1)
            grid.put(line, x: 1, y: bottom + i, style: theme.dim)
        }
    }
}
