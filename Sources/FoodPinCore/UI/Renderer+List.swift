extension Renderer {
    mutating func renderList() {
        let list = state.list
        var right = list.isLoaded ? "\(list.count)\(list.hasMore ? "+" : "") restaurant\(list.count == 1 ? "" : "s")" : ""
        if state.config.debug, let debug = state.debugStatus { right = debug + "  " + right }
        var title = "FoodPin · Discover"
        if state.newAboveCount > 0 { title += " · \(unicode ? "↑" : "^") \(state.newAboveCount) new" }
        if let searchTitle { (title, right) = (searchTitle, "") }
        renderTitle(title, right: right)
        renderStatusLine()
        if !renderSearchBar() {
            renderHelpBar([("j/k", "move"), ("Enter", "open"), ("r", "refresh"), ("a", "add"), ("d", "delete"), ("e", "edit"),
                           ("s", "save to list"), ("l", "lists"), ("/", "search"), ("?", "help"), ("q", "quit")])
        }

        let top = Layout.listTop
        let listHeight = height - top - 1
        if list.isEmpty {
            let message: String
            if let searchEmptyMessage {
                message = searchEmptyMessage
            } else if state.isLoadingFirstPage || (!list.isLoaded && state.errorBanner == nil) {
                message = spinner + "Loading restaurants…"
            } else if state.errorBanner != nil {
                message = "Nothing to show yet — press r to retry"
            } else {
                message = "No restaurants yet — press a to add one"
            }
            let x = max(0, (width - DisplayWidth.of(message)) / 2)
            grid.put(message, x: x, y: top + listHeight / 2, style: theme.dim)
            return
        }
        let rows = state.visibleRowCount
        let offset = max(0, min(state.scrollOffset, list.count - 1))
        for slot in 0..<rows where offset + slot < list.count {
            renderRow(index: offset + slot, y: top + slot * Layout.rowHeight)
        }
    }

    mutating func renderRow(index: Int, y: Int) {
        let restaurant = state.list.items[index]
        let selected = index == state.list.selectedIndex
        func style(_ base: CellStyle) -> CellStyle { selected ? theme.onSelected(base) : base }
        if selected {
            grid.fill(x: 0, y: y, width: width, height: Layout.rowHeight, style: theme.selected)
            for row in 0..<Layout.rowHeight { grid.put(unicode ? "▌" : ">", x: 0, y: y + row, style: theme.marker) }
        }
        if state.config.showsImages {
            renderThumbnail(ThumbnailKey(recordID: restaurant.id, size: .row), x: Layout.thumbnailColumn, y: y, selected: selected)
        }
        let x = state.config.showsImages ? Layout.textColumn : Layout.thumbnailColumn
        let textWidth = width - x - 1
        let name = TextSanitizer.line(restaurant.name)
        let kind = [restaurant.type, restaurant.location].map(TextSanitizer.line).filter { !$0.isEmpty }.joined(separator: " · ")
        let who = TextSanitizer.line(restaurant.createdBy)
        var added = "added \(RelativeTime.describe(restaurant.createdAt, now: state.now))" + (who.isEmpty ? "" : " by \(who)")
        var addedStyle = theme.dim
        if let failure = restaurant.uploadFailure {
            added = (unicode ? "✗ " : "! ") + "not uploaded: " + TextSanitizer.line(failure)
            addedStyle = theme.error
        } else if restaurant.isWaiting {
            added = (unicode ? "⧗ " : "~ ") + "waiting to upload"
            addedStyle = theme.status
        }
        grid.put(TextLayout.truncate(name, width: textWidth), x: x, y: y, style: style(theme.name))
        grid.put(TextLayout.truncate(kind, width: textWidth), x: x, y: y + 1, style: style(theme.text))
        grid.put(TextLayout.truncate(added, width: textWidth), x: x, y: y + 2, style: style(addedStyle))
    }
}
