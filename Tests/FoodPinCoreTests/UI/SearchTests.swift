import Foundation
import Testing
@testable import FoodPinCore

/// Issue 13: `/` search as you type, in `update` and `view` (grid text).
@Suite struct SearchTests {
    let config = AppConfig(currentUser: "alice", showsImages: false, formServices: .fake())
    let noodles = [Restaurant.fixture("n1", "Noodle Bar", minutesAgo: 1, type: "Ramen"),
                   .fixture("n2", "Noodle House", minutesAgo: 2, type: "Ramen"),
                   .fixture("n3", "Udon Noodle", minutesAgo: 3, type: "Udon")]

    func typed(_ state: inout AppState, _ text: String) -> [Effect] {
        var effects: [Effect] = []
        for character in text { effects = update(&state, .key(.character(character))) }
        return effects
    }

    func searchRequest(in effects: [Effect]) -> SearchRequest? {
        effects.lazy.compactMap { if case .search(let request) = $0 { request } else { nil } }.first
    }

    @Test func slashOpensTheSearchLineAndTypingAsksForADebouncedSearch() throws {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 14, config: config)
        send(&state, .key(.character("j")))
        #expect(send(&state, .key(.character("/"))).isEmpty)
        #expect(state.search?.isEditing == true)
        #expect(view(state, width: 50, height: 14).lines[13].hasPrefix(" /  "), "an empty search line with its cursor")

        let effects = typed(&state, "nood")
        let request = try #require(searchRequest(in: effects))
        #expect(request == SearchRequest(text: "nood", generation: 4, limit: 50, delay: .milliseconds(150)))
        #expect(state.search?.isSearching == true)
        // j, k, q, r, a, d, ? are text while typing.
        #expect(searchRequest(in: typed(&state, "le jkqrad?"))?.text == "noodle jkqrad?")
        #expect(!state.shouldQuit && state.screen == .list && !state.isHelpVisible)
        let grid = view(state, width: 50, height: 14)
        #expect(grid.lines[13].hasPrefix(" /noodle jkqrad?"))
        #expect(grid.lines[1].contains("Searching…"))
        #expect(grid.lines[0].hasPrefix(" FoodPin · Discover "), "no count until results arrive")
    }

    @Test func resultsShowWithTheQueryAndCountInTheTitle() {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 14, config: config)
        send(&state, .key(.character("/")))
        let request = searchRequest(in: typed(&state, "noodle"))!
        send(&state, .searchLoaded(request, .first, .success(page(noodles))))
        #expect(state.search?.isSearching == false)
        #expect(view(state, width: 50, height: 14).text == """
             FoodPin · Discover · "noodle" · 3 found
                                                        local
            ▌ Noodle Bar
            ▌ Ramen · Hong Kong
            ▌ added 1 min ago by alice
              Noodle House
              Ramen · Hong Kong
              added 2 min ago by alice
              Udon Noodle
              Udon · Hong Kong
              added 3 min ago by alice


             /noodle                 Enter results  Esc clear
            """)
    }

    @Test func enterMovesFocusToTheResultsWhereEnterOpensARestaurant() {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 14, config: config)
        send(&state, .key(.character("/")))
        let request = searchRequest(in: typed(&state, "noodle"))!
        send(&state, .searchLoaded(request, .first, .success(page(noodles))))
        send(&state, .key(.enter))
        #expect(state.search?.isEditing == false)
        #expect(state.screen == .list)
        #expect(view(state, width: 50, height: 14).lines[13].hasPrefix(" j/k move  Enter open  / edit search"))
        send(&state, .key(.character("j")))
        #expect(state.list.selected?.id == "n2")
        send(&state, .key(.enter))
        #expect(state.screen == .detail(id: "n2"))
        send(&state, .key(.escape))
        #expect(state.screen == .list)
        #expect(state.search != nil, "back from the detail view, the results are still there")
        // `/` edits the search again.
        send(&state, .key(.character("/")))
        #expect(state.search?.isEditing == true)
        #expect(searchRequest(in: typed(&state, "s"))?.text == "noodles")
    }

    @Test func escClearsTheSearchAndRestoresTheListAndSelection() {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 14, config: config)
        for _ in 0..<5 { send(&state, .key(.character("j"))) }
        let before = view(state, width: 50, height: 14)
        let (selected, offset) = (state.list.selected?.id, state.scrollOffset)
        send(&state, .key(.character("/")))
        let request = searchRequest(in: typed(&state, "noodle"))!
        send(&state, .searchLoaded(request, .first, .success(page(noodles))), .key(.enter), .key(.character("j")))
        #expect(send(&state, .key(.escape)) == [.cancelSearch])
        #expect(state.search == nil)
        #expect(state.list.selected?.id == selected)
        #expect(state.scrollOffset == offset)
        #expect(view(state, width: 50, height: 14) == before)
        // A second Esc is the list's own again (it would dismiss a banner); it does not quit.
        send(&state, .key(.escape))
        #expect(!state.shouldQuit)
    }

    @Test func noMatchSaysSo() {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 14, config: config)
        send(&state, .key(.character("/")))
        let request = searchRequest(in: typed(&state, "xyz"))!
        send(&state, .searchLoaded(request, .first, .success(page([]))))
        let grid = view(state, width: 50, height: 14)
        #expect(grid.lines[0].hasPrefix(" FoodPin · Discover · \"xyz\" · 0 found"))
        #expect(grid.lines.contains { $0.contains("No restaurants match 'xyz'") })
    }

    @Test func aStaleResultNeverReplacesANewerOne() {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 14, config: config)
        send(&state, .key(.character("/")))
        let old = searchRequest(in: typed(&state, "noo"))!
        let new = searchRequest(in: typed(&state, "dle"))!
        #expect(new.generation > old.generation)
        send(&state, .searchLoaded(new, .first, .success(page(noodles))))
        send(&state, .searchLoaded(old, .first, .success(page([.fixture("x", "Stale", minutesAgo: 0)]))))
        #expect(state.list.items.map(\.id) == ["n1", "n2", "n3"])
        #expect(view(state, width: 50, height: 14).lines[0].contains("\"noodle\" · 3 found"))
        // An answer for the text before the latest edit is dropped as well, even if it came last.
        let newest = searchRequest(in: typed(&state, "s"))!
        send(&state, .searchLoaded(new, .first, .success(page([]))))
        #expect(state.list.count == 3)
        #expect(state.search?.isSearching == true)
        send(&state, .searchLoaded(newest, .first, .success(page([]))))
        #expect(state.list.isEmpty)
    }

    @Test func emptyingTheTextShowsTheFullListAndCancels() {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 14, config: config)
        send(&state, .key(.character("/")))
        let request = searchRequest(in: typed(&state, "x"))!
        send(&state, .searchLoaded(request, .first, .success(page([]))))
        #expect(send(&state, .key(.backspace)) == [.cancelSearch])
        #expect(state.list.count == 10)
        #expect(state.search?.resultText == nil)
        #expect(view(state, width: 50, height: 14).lines[0].contains("10 restaurants"))
    }

    @Test(arguments: ["%@", "\"", "\\", "''", "--"])
    func punctuationAloneMatchesNothingWithoutAQuery(text: String) {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 14, config: config)
        send(&state, .key(.character("/")))
        let effects = typed(&state, text)
        #expect(searchRequest(in: effects) == nil)
        #expect(effects == [.cancelSearch])
        #expect(view(state, width: 50, height: 14).lines.contains { $0.contains("No restaurants match '\(text)'") })
    }

    @Test func hostileTextIsDataOnTheScreen() throws {
        var state = AppState.loaded(restaurants(0..<10), width: 60, height: 14, config: config)
        send(&state, .key(.character("/")))
        // Control characters cannot be typed; quotes, %@, OR and backslashes are plain text.
        let text = "\"a\" OR %@ \\b"
        let request = try #require(searchRequest(in: typed(&state, text + "\u{1B}[2J")))
        #expect(request.text == text + "[2J")
        #expect(typed(&state, "\u{7}\u{9B}").isEmpty, "refused, so nothing changed")
        send(&state, .searchLoaded(request, .first, .success(page([]))))
        let grid = view(state, width: 60, height: 14)
        #expect(grid.lines[0].contains("\"\"a\" OR %@ \\b[2J\" · 0 found"))
        #expect(!grid.text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }

    @Test func resultsPageByCursorLikeTheFullList() throws {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 14, config: config)
        send(&state, .key(.character("/")))
        let request = searchRequest(in: typed(&state, "r"))!
        send(&state, .searchLoaded(request, .first, .success(page(restaurants(0..<20), cursor: "c1"))))
        #expect(view(state, width: 50, height: 14).lines[0].contains("20+ found"))
        #expect(state.search?.isLoadingMore == false, "the top of a long page needs no more yet")
        send(&state, .key(.enter))
        let effects = send(&state, .key(.character("G")))
        let next = effects.compactMap { if case .loadNextSearchPage(let cursor, let request) = $0 { (cursor, request) } else { nil } }
        #expect(next.count == 1)
        #expect(next.first?.1.text == "r")
        #expect(state.search?.isLoadingMore == true)
        let nextRequest = try #require(next.first?.1)
        send(&state, .searchLoaded(nextRequest, .next, .success(page(restaurants(18..<22)))))
        #expect(state.list.items.map(\.id) == (0..<22).map { "r\($0)" }, "rows already shown are skipped")
        #expect(view(state, width: 50, height: 14).lines[0].contains("22 found"))
        #expect(!effects.contains { if case .loadNextPage = $0 { true } else { false } }, "not the full list's paging")
    }

    @Test func aFullListRefreshDuringASearchGoesToTheListBehindIt() {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 14, config: config)
        send(&state, .key(.character("/")))
        let request = searchRequest(in: typed(&state, "noodle"))!
        send(&state, .searchLoaded(request, .first, .success(page(noodles))), .key(.enter))
        // r refreshes both: the results, and the full list behind them.
        let effects = send(&state, .key(.character("r")))
        #expect(effects.contains(.refresh(limit: 50)))
        let again = self.searchRequest(in: effects)
        #expect(again?.text == "noodle" && again?.delay == .zero)
        send(&state, .pageLoaded(.refresh, .success(page([.fixture("new", minutesAgo: 0)] + restaurants(0..<10)))))
        #expect(state.list.items.map(\.id) == ["n1", "n2", "n3"], "the results stay")
        send(&state, .key(.escape))
        #expect(state.list.items.first?.id == "new", "the full list has the refresh")
        #expect(state.list.selected?.id == "r0")
    }

    @Test func aSpaceAfterAWordAsksNothingNew() {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 14, config: config)
        send(&state, .key(.character("/")))
        let request = searchRequest(in: typed(&state, "noodle"))!
        #expect(typed(&state, " ").isEmpty, "the same words: no new query")
        send(&state, .searchLoaded(request, .first, .success(page(noodles))))
        #expect(state.list.count == 3, "the answer to the same words is still current")
        #expect(searchRequest(in: typed(&state, "b"))?.text == "noodle b")
    }

    @Test func arrowsMoveInTheResultsWhileTyping() {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 14, config: config)
        send(&state, .key(.character("/")))
        let request = searchRequest(in: typed(&state, "noodle"))!
        send(&state, .searchLoaded(request, .first, .success(page(noodles))))
        send(&state, .key(.down))
        #expect(state.list.selected?.id == "n2")
        #expect(send(&state, .key(.up)).isEmpty)
        #expect(send(&state, .key(.up)).isEmpty, "no pull-to-refresh from the search line")
        #expect(!state.isRefreshing)
        #expect(state.list.selected?.id == "n1")
        #expect(state.search?.text == "noodle")
    }
}
