/// The search's pieces of the list screen: the title with the query and count, the search
/// line at the bottom, and the no-match message. Typed text is drawn sanitized, as data.
extension Renderer {
    /// `FoodPin · Discover · "noodle" · 3 found`, or `nil` without a search result to describe.
    var searchTitle: String? {
        guard let search = state.search, let text = search.resultText else { return nil }
        let list = state.list
        return "FoodPin · Discover · \"\(TextSanitizer.line(text))\" · \(list.count)\(list.hasMore ? "+" : "") found"
    }

    /// "No restaurants match 'xyz'" when a search found nothing.
    var searchEmptyMessage: String? {
        guard let search = state.search, let text = search.resultText, !search.isSearching else { return nil }
        return "No restaurants match '\(TextSanitizer.line(text))'"
    }

    /// The bottom row while the search is open: the search line while typing, else the keys
    /// of the results. Returns whether it drew the row.
    mutating func renderSearchBar() -> Bool {
        guard let search = state.search else { return false }
        guard search.isEditing else {
            renderHelpBar([("j/k", "move"), ("Enter", "open"), ("/", "edit search"), ("Esc", "clear search"),
                           ("r", "refresh"), ("q", "quit")])
            return true
        }
        let y = height - 1
        let hints = "Enter results  Esc clear"
        let hintsWidth = DisplayWidth.of(hints)
        let fieldEnd = width - hintsWidth - 3 > 20 ? width - hintsWidth - 3 : width - 1
        grid.put("/", x: 1, y: y, style: theme.key)
        renderSingleLine(search.editor, x: 2, y: y, width: max(1, fieldEnd - 2), style: theme.text, showCursor: true)
        if fieldEnd < width - 1 { grid.put(hints, x: width - hintsWidth - 1, y: y, style: theme.dim) }
        return true
    }

    /// The status line's search spinner, if a search query is running.
    var searchStatus: String? {
        guard let search = state.search else { return nil }
        if search.isSearching { return spinner + "Searching…" }
        if search.isLoadingMore { return spinner + "Loading more…" }
        return nil
    }
}
