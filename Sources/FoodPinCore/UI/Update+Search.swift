import Foundation

/// The `/` search in `update`: the search line's keys, debounced queries, results, and Esc.
///
/// ```swift
/// update(&state, .key(.character("/")))            // the search line opens
/// update(&state, .key(.character("n")))            // [.search(SearchRequest(text: "n", generation: 1, …))]
/// update(&state, .searchLoaded(request, .first, .success(page)))   // shown only if generation 1 is current
/// update(&state, .key(.escape))                     // the full list is back with its selection
/// ```
extension AppState {
    /// Keys the search takes on the list screen: `/` opens it; while typing, every key but the
    /// list's arrows edits the text; Enter moves focus to the results; Esc closes it.
    /// Returns `nil` for keys it leaves to the list.
    mutating func handleSearchKey(_ key: Key) -> [Effect]? {
        guard screen == .list else { return nil }
        guard var search else {
            return key == .character("/") ? openSearch() : nil
        }
        if search.isEditing {
            switch key {
            case .escape: return closeSearch()
            case .enter:
                search.isEditing = false
                self.search = search
                return []
            case .up:
                // Moves in the results; never the list's pull-to-refresh at the top.
                list.moveSelection(by: -1)
                return []
            case .down, .pageUp, .pageDown, .wheelUp, .wheelDown:
                return nil
            default:
                let before = search.editor.text
                search.editor.handle(key)
                self.search = search
                return search.editor.text == before ? [] : searchTextChanged()
            }
        }
        switch key {
        case .character("/"):
            search.isEditing = true
            self.search = search
            return []
        case .escape:
            return closeSearch()
        case .character("r"):
            // Both lists: the results again, and the full list behind them.
            errorBanner = nil
            return startRefresh() + searchTextChanged(delay: .zero)
        case .character("k"), .up:
            // No pull-to-refresh from the results.
            list.moveSelection(by: -1)
            return []
        default:
            return nil
        }
    }

    private mutating func openSearch() -> [Effect] {
        search = SearchState(savedList: list, savedScrollOffset: scrollOffset)
        return []
    }

    /// Esc: the full list comes back with the selection it had; the search in flight is cancelled.
    mutating func closeSearch() -> [Effect] {
        guard let search else { return [] }
        list = search.savedList
        scrollOffset = search.savedScrollOffset
        self.search = nil
        return [.cancelSearch]
    }

    /// The text changed: a new generation, and a debounced query if there is a word to search for.
    private mutating func searchTextChanged(delay: Duration? = nil) -> [Effect] {
        guard var search else { return [] }
        let text = search.text.trimmingCharacters(in: .whitespaces)
        // A space after a word asks the same question again: keep the answer shown or on its way.
        if delay == nil, text == search.queriedText { return [] }
        search.queriedText = text
        search.generation += 1
        search.isLoadingMore = false
        search.isPagingBlocked = false
        if text.isEmpty {
            // Nothing typed: the full list, as it was.
            list = search.savedList
            scrollOffset = search.savedScrollOffset
            search.isSearching = false
            search.resultText = nil
            self.search = search
            return [.cancelSearch]
        }
        guard SearchRequest.hasWords(text) else {
            // Punctuation alone names no word, so nothing matches; no query is needed.
            showResults(DiscoverPage(restaurants: [], cursor: nil), for: text, in: &search)
            search.isSearching = false
            self.search = search
            return [.cancelSearch]
        }
        search.isSearching = true
        self.search = search
        return [.search(SearchRequest(text: text, generation: search.generation, limit: config.pageSize,
                                      delay: delay ?? config.searchDebounce))]
    }

    private mutating func showResults(_ page: DiscoverPage, for text: String, in search: inout SearchState) {
        var results = DiscoverList()
        results.replace(with: page)
        results.select(index: 0)
        list = results
        scrollOffset = 0
        search.resultText = text
    }

    /// A search page arrived: shown only if it answers the current text.
    mutating func searchLoaded(_ request: SearchRequest, _ kind: Msg.SearchPage,
                               _ result: Result<DiscoverPage, DiscoverError>) -> [Effect] {
        guard var search, request.generation == search.generation else { return [] }
        switch (kind, result) {
        case (.first, .success(let page)):
            search.isSearching = false
            showResults(page, for: request.text, in: &search)
        case (.first, .failure(let error)):
            search.isSearching = false
            errorBanner = ErrorBanner(message: error.banner(couldNot: "search", cached: cachedCount), retry: nil)
        case (.next, .success(let page)):
            search.isLoadingMore = false
            list.append(page)
        case (.next, .failure(let error)):
            search.isLoadingMore = false
            search.isPagingBlocked = true
            errorBanner = ErrorBanner(message: error.banner(couldNot: "load more", cached: cachedCount), retry: nil)
        }
        self.search = search
        return []
    }

    /// The next page of results when the selection nears the end of those loaded.
    mutating func searchLoadMoreIfNeeded() -> [Effect] {
        guard var search, !search.isSearching, !search.isLoadingMore, !search.isPagingBlocked,
              let text = search.resultText, list.isLoaded, let cursor = list.cursor,
              list.needsMore(threshold: max(5, visibleRowCount)) else { return [] }
        search.isLoadingMore = true
        self.search = search
        let request = SearchRequest(text: text, generation: search.generation, limit: config.pageSize, delay: .zero)
        return [.loadNextSearchPage(cursor, request)]
    }

    /// A page of the full list arrived while the search shows: it goes to the saved full list.
    mutating func fullListPageLoadedWhileSearching(_ request: Msg.PageRequest,
                                                   _ result: Result<DiscoverPage, DiscoverError>) -> [Effect] {
        guard var search else { return [] }
        let (results, offset) = (list, scrollOffset)
        list = search.savedList
        scrollOffset = search.savedScrollOffset
        self.search = nil
        let effects = pageLoaded(request, result)
        search.savedList = list
        search.savedScrollOffset = scrollOffset
        list = results
        scrollOffset = offset
        self.search = search
        return effects
    }

    /// A change the user made (a deletion) applies to the full list behind the results too.
    mutating func updateSavedList(_ change: (inout DiscoverList) -> Void) {
        guard var search else { return }
        change(&search.savedList)
        self.search = search
    }
}
