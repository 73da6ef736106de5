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
        renderHelpBar([("Esc", "back"), ("j/k", "scroll"), ("d", "delete"), ("e", "edit"), ("r", "refresh"), ("?", "help")])

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
        var lines: [(text: String, style: CellStyle)] = TextLayout.wrap([name], width: textWidth).map { ($0, theme.name) }
        for (label, value) in fields {
            let text = label + ": " + (value.isEmpty ? "—" : TextSanitizer.line(value))
            lines += TextLayout.wrap([text], width: textWidth).map { ($0, theme.text) }
        }
        lines.append(("", theme.text))
        let description = Layout.detailDescriptionLines(restaurant, textWidth: textWidth)
        let bottom = height - 1
        var y = textY
        for line in lines where y < bottom {
            grid.put(line.text, x: textX, y: y, style: line.style)
            y += 1
        }
        let room = bottom - y
        let start = max(0, min(state.detailScroll, description.count - room))
        for line in description.dropFirst(start).prefix(max(0, room)) {
            grid.put(line, x: textX, y: y, style: theme.text)
            y += 1
        }
    }
}
