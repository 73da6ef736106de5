/// The `/` search: the search line, the results it shows, and the full list to go back to.
///
/// While a search is open, ``AppState/list`` holds the results (so moving, opening and
/// thumbnails work as on the full list), and ``savedList`` holds the full list with its
/// selection, which Esc puts back. A result is shown only if it answers the current
/// ``generation``: a stale one never replaces a newer one.
package struct SearchState: Sendable {
    /// The typed text and its cursor.
    package internal(set) var editor = LineEditor(maxLength: 200)
    /// Whether keys go to the search line (typing) or to the results (after Enter).
    package internal(set) var isEditing = true
    /// A query is waiting or running for the current text.
    package internal(set) var isSearching = false
    /// The text the shown results answer, or `nil` while the full list shows (nothing typed yet).
    package internal(set) var resultText: String?
    package internal(set) var isLoadingMore = false
    /// Incremented by every edit, so older answers are recognised and dropped.
    var generation = 0
    /// The trimmed text of the last query asked for (or answered without one).
    var queriedText = ""
    /// After a failed next page, paging waits for `r`.
    var isPagingBlocked = false
    /// The full list and its viewport, as they were when `/` was pressed (kept up to date by refreshes).
    var savedList: DiscoverList
    var savedScrollOffset: Int

    init(savedList: DiscoverList, savedScrollOffset: Int) {
        self.savedList = savedList
        self.savedScrollOffset = savedScrollOffset
    }

    package var text: String { editor.text }
}
