extension Renderer {
    // MARK: Lists

    /// `l`: *My lists* (name, count, who it is shared with), then *Shared with me* (name, owner,
    /// count, permission). Record text is sanitized like every row.
    mutating func renderLists() {
        let lists = state.lists
        renderTitle("FoodPin · Lists", right: lists.overview.map { "\($0.all.count) list\($0.all.count == 1 ? "" : "s")" } ?? "")
        renderListsStatusLine(loading: "Loading lists…")
        renderHelpBar([("j/k", "move"), ("Enter", "open"), ("r", "refresh"), ("Esc", "Discover"), ("?", "help")])
        guard let overview = lists.overview else {
            let message = lists.isLoading ? spinner + "Loading lists…" : "Nothing to show yet — press r to retry"
            grid.put(message, x: max(0, (width - DisplayWidth.of(message)) / 2), y: height / 2, style: theme.dim)
            return
        }
        var y = Layout.listTop
        let bottom = height - 1
        var index = 0
        func section(_ title: String, _ rows: [RestaurantListSummary], empty: String, renderer: inout Renderer) {
            guard y < bottom else { return }
            renderer.grid.put(title, x: 1, y: y, style: renderer.theme.name)
            y += 1
            if rows.isEmpty, y < bottom {
                renderer.grid.put(empty, x: 3, y: y, style: renderer.theme.dim)
                y += 1
            }
            for list in rows where y < bottom {
                renderer.renderListRow(list, y: y, selected: index == lists.selectedIndex)
                index += 1
                y += 1
            }
            y += 1
        }
        section("My lists", overview.mine, empty: "None yet — press s on a restaurant to save it to a list", renderer: &self)
        section("Shared with me", overview.sharedWithMe, empty: "Nothing shared with you yet", renderer: &self)
        // Never lost in silence: each change the server refused on upload, until it is resolved.
        for refused in overview.refused {
            for line in TextLayout.wrap([(unicode ? "✗ " : "! ") + refused.message], width: max(1, width - 2)) where y < bottom {
                grid.put(line, x: 1, y: y, style: theme.error)
                y += 1
            }
        }
    }

    private mutating func renderListRow(_ list: RestaurantListSummary, y: Int, selected: Bool) {
        func style(_ base: CellStyle) -> CellStyle { selected ? theme.onSelected(base) : base }
        if selected {
            grid.fill(x: 0, y: y, width: width, height: 1, style: theme.selected)
            grid.put(unicode ? "▌" : ">", x: 0, y: y, style: theme.marker)
        }
        let count = "\(list.count) restaurant\(list.count == 1 ? "" : "s")"
        let detail: String
        if list.isMine {
            detail = list.sharedWith.isEmpty ? count : count + " · shared with " + list.sharedWith.map(TextSanitizer.line).joined(separator: ", ")
        } else {
            detail = "by \(TextSanitizer.line(list.owner)) · \(count) · \(list.permission)"
        }
        let name = TextLayout.truncate(TextSanitizer.line(list.name), width: max(0, min(30, width / 2)))
        let x = grid.put(name, x: 3, y: y, style: style(theme.name))
        grid.put(TextLayout.truncate(detail, width: max(0, width - x - 3)), x: x + 2, y: y, style: style(theme.dim))
    }

    // MARK: A list's entries

    /// Enter on a list: its entries, drawn like Discover's rows, with thumbnails.
    mutating func renderListEntries() {
        let lists = state.lists
        guard let open = lists.open else { return }
        let owner = open.isMine ? "" : " · by \(TextSanitizer.line(open.owner)) · \(open.permission)"
        renderTitle("FoodPin · " + TextSanitizer.line(open.name) + owner,
                    right: "\(lists.entries.count) restaurant\(lists.entries.count == 1 ? "" : "s")")
        renderListsStatusLine(loading: "Loading the list…")
        renderHelpBar(open.canWrite ? [("j/k", "move"), ("d", "remove"), ("r", "refresh"), ("Esc", "lists"), ("?", "help")]
                                    : [("j/k", "move"), ("r", "refresh"), ("Esc", "lists"), ("?", "help")])
        let top = Layout.listTop
        if lists.entries.isEmpty {
            let message = !lists.areEntriesLoaded ? spinner + "Loading the list…" : "No restaurants on this list"
            grid.put(message, x: max(0, (width - DisplayWidth.of(message)) / 2), y: top + (height - top - 1) / 2, style: theme.dim)
            return
        }
        let rows = state.visibleRowCount
        for slot in 0..<rows where lists.entryScroll + slot < lists.entries.count {
            let index = lists.entryScroll + slot
            renderEntryRow(lists.entries[index], ref: open.ref, y: top + slot * Layout.rowHeight, selected: index == lists.selectedEntry)
        }
    }

    private mutating func renderEntryRow(_ entry: Restaurant, ref: RestaurantListRef, y: Int, selected: Bool) {
        func style(_ base: CellStyle) -> CellStyle { selected ? theme.onSelected(base) : base }
        if selected {
            grid.fill(x: 0, y: y, width: width, height: Layout.rowHeight, style: theme.selected)
            for row in 0..<Layout.rowHeight { grid.put(unicode ? "▌" : ">", x: 0, y: y + row, style: theme.marker) }
        }
        if state.config.showsImages {
            renderThumbnail(ThumbnailKey(recordID: RestaurantListRecord.thumbnailID(entry: entry.id, in: ref), size: .row),
                            x: Layout.thumbnailColumn, y: y, selected: selected)
        }
        let x = state.config.showsImages ? Layout.textColumn : Layout.thumbnailColumn
        let textWidth = width - x - 1
        let kind = [entry.type, entry.location].map(TextSanitizer.line).filter { !$0.isEmpty }.joined(separator: " · ")
        let who = TextSanitizer.line(entry.createdBy)
        let added = "saved \(RelativeTime.describe(entry.createdAt, now: state.now))" + (who.isEmpty ? "" : " by \(who)")
        grid.put(TextLayout.truncate(TextSanitizer.line(entry.name), width: textWidth), x: x, y: y, style: style(theme.name))
        grid.put(TextLayout.truncate(kind, width: textWidth), x: x, y: y + 1, style: style(theme.text))
        grid.put(TextLayout.truncate(added, width: textWidth), x: x, y: y + 2, style: style(theme.dim))
    }

    /// Row 1 of the Lists screens: a notice, the live banner, or the spinner.
    private mutating func renderListsStatusLine(loading: String) {
        let lists = state.lists
        if let notice = lists.notice {
            let refused = notice.hasPrefix("Couldn't") || notice.hasPrefix("Read-only") || notice.contains("no longer shared")
            banner(TextSanitizer.line(notice), style: refused ? theme.error : theme.status, y: 1)
        } else if lists.liveChanges > 0 {
            let text = "\(lists.liveChanges) change\(lists.liveChanges == 1 ? "" : "s") by others — press r"
            banner((unicode ? "● " : "* ") + text, style: theme.live, y: 1)
        } else if lists.isLoading {
            grid.put(spinner + loading, x: 1, y: 1, style: theme.status)
        } else if state.isOffline {
            grid.put("offline · cached", x: 1, y: 1, style: theme.status)
        }
    }

    // MARK: The save-to-list picker

    /// On Discover, after `s`: "Saved to “Friday”" or why not, until the next key.
    mutating func renderListNotice() {
        guard let notice = state.lists.notice, state.lists.picker == nil else { return }
        let refused = notice.hasPrefix("Couldn't")
        banner((refused ? (unicode ? "✗ " : "! ") : (unicode ? "✓ " : "+ ")) + TextSanitizer.line(notice),
               style: refused ? theme.error : theme.status, y: 1)
    }

    /// `s` on Discover: a box over the list to pick a list or type a new one's name.
    mutating func renderSavePicker() {
        guard let picker = state.lists.picker else { return }
        let names = picker.names ?? []
        let boxWidth = min(width - 4, 50)
        let boxHeight = min(height - 2, names.count + 5)
        let x0 = (width - boxWidth) / 2
        let y0 = max(1, (height - boxHeight) / 2)
        grid.fill(x: x0, y: y0, width: boxWidth, height: boxHeight, style: theme.status)
        let title = "Save “\(TextSanitizer.line(picker.restaurantName))” to:"
        grid.put(TextLayout.truncate(title, width: boxWidth - 2), x: x0 + 1, y: y0, style: theme.name)
        var y = y0 + 1
        if picker.names == nil {
            grid.put(spinner + "Loading lists…", x: x0 + 2, y: y, style: theme.status)
            return
        }
        let visible = max(0, boxHeight - 4)
        let first = max(0, min(picker.selected - visible + 1, names.count - visible))
        for index in first..<min(names.count, first + visible) {
            let selected = index == picker.selected
            let mark = selected ? (unicode ? "▸ " : "> ") : "  "
            grid.put(TextLayout.truncate(mark + TextSanitizer.line(names[index]), width: boxWidth - 3), x: x0 + 1, y: y,
                     style: selected ? theme.selected : theme.status)
            y += 1
        }
        let newSelected = picker.isOnNewListRow
        let label = (newSelected ? (unicode ? "▸ " : "> ") : "  ") + "New list: "
        let after = grid.put(label, x: x0 + 1, y: y, style: newSelected ? theme.selected : theme.status)
        let text = TextLayout.truncate(TextSanitizer.line(picker.newName.text) + (newSelected ? "_" : ""), width: max(0, x0 + boxWidth - after - 1))
        grid.put(text, x: after, y: y, style: theme.name)
        let hint = picker.isSaving ? spinner + "Saving…" : "Enter saves · Esc cancels"
        grid.put(TextLayout.truncate(hint, width: boxWidth - 2), x: x0 + 1, y: y0 + boxHeight - 1, style: theme.dim)
    }
}
