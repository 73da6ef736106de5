import Foundation
import Testing
@testable import FoodPinCore

/// Issue 13: a refresh shows what is new when the list is at the top, and keeps the reader's
/// place (saying how many are new above) when it is scrolled down.
@Suite struct RefreshTests {
    let textOnly = AppConfig(currentUser: "alice", showsImages: false, formServices: .fake())

    func names(_ grid: Grid) -> [String] {
        grid.lines.compactMap { line in
            let trimmed = line.drop { $0 == " " || $0 == "▌" }
            let name = trimmed.hasSuffix(" ") ? String(trimmed.reversed().drop { $0 == " " }.reversed()) : String(trimmed)
            return name.hasPrefix("Restaurant ") ? name : nil
        }
    }

    func fresh(_ newIDs: [String], then old: Range<Int> = 0..<10) -> DiscoverPage {
        page(newIDs.enumerated().map { Restaurant.fixture($1, minutesAgo: 0.1 * Double($0 + 1), by: "bob") } + restaurants(old))
    }

    @Test func refreshAtTheTopWithTheSelectionOnTheFourthRowShowsTheNewRows() {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 20, config: textOnly) // 5 rows
        send(&state, .key(.character("j")), .key(.character("j")), .key(.character("j")))
        #expect(state.list.selected?.id == "r3")
        #expect(state.scrollOffset == 0)
        #expect(send(&state, .key(.character("r"))) == [.refresh(limit: 50)])
        send(&state, .pageLoaded(.refresh, .success(fresh(["new"]))))
        #expect(state.list.selected?.id == "r3", "the selected restaurant stays selected")
        #expect(state.scrollOffset == 0, "the viewport stays at the top")
        #expect(state.newAboveCount == 0)
        #expect(view(state, width: 50, height: 20).text == """
             FoodPin · Discover                11 restaurants
                                                        local
              Restaurant new
              Cafe · Hong Kong
              added just now by bob
              Restaurant r0
              Cafe · Hong Kong
              added 1 min ago by alice
              Restaurant r1
              Cafe · Hong Kong
              added 2 min ago by alice
              Restaurant r2
              Cafe · Hong Kong
              added 3 min ago by alice
            ▌ Restaurant r3
            ▌ Cafe · Hong Kong
            ▌ added 4 min ago by alice


             j/k move  Enter open  r refresh  a add  d delete
            """)
    }

    @Test func rDuringARefreshRefreshesOnceMoreWhenItEnds() {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 14, config: textOnly)
        #expect(send(&state, .key(.character("r"))) == [.refresh(limit: 50)])
        // That refresh may have left before what the reader now expects (a revoked sign-in).
        #expect(send(&state, .key(.character("r"))) == [], "one refresh at a time")
        #expect(send(&state, .key(.character("r"))) == [])
        #expect(send(&state, .pageLoaded(.refresh, .success(fresh(["new"])))) == [.refresh(limit: 50)],
                "the one asked for meanwhile starts, once")
        #expect(state.isRefreshing)
        let revoked = DiscoverError(.signedOut, "Signed out: run foodpin login")
        #expect(send(&state, .pageLoaded(.refresh, .failure(revoked))) == [])
        #expect(!state.isRefreshing)
        #expect(view(state, width: 50, height: 14).text.contains("Signed out: run foodpin login"))
        #expect(names(view(state, width: 50, height: 14)).first == "Restaurant new", "the list stays")
    }

    @Test func refreshAtTheTopWithTheSelectionOnTheFirstRow() {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 14, config: textOnly) // 3 rows
        send(&state, .key(.character("r")), .pageLoaded(.refresh, .success(fresh(["new2", "new1"]))))
        #expect(state.list.selected?.id == "r0")
        #expect(names(view(state, width: 50, height: 14)) == ["Restaurant new2", "Restaurant new1", "Restaurant r0"])
        #expect(!view(state, width: 50, height: 14).lines[0].contains("new"))
    }

    @Test func kAtTheTopRefreshesAndTheNewRowShowsAboveTheSelection() {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 14, config: textOnly)
        #expect(send(&state, .key(.character("k"))) == [.refresh(limit: 50)])
        send(&state, .pageLoaded(.refresh, .success(fresh(["new"]))))
        #expect(state.list.selected?.id == "r0")
        #expect(state.list.selectedIndex == 1)
        #expect(names(view(state, width: 50, height: 14)) == ["Restaurant new", "Restaurant r0", "Restaurant r1"])
    }

    @Test func atTheTopMoreNewRowsThanFitScrollToTheSelectionAndCountTheRest() {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 14, config: textOnly) // 3 rows
        send(&state, .key(.character("j")))
        send(&state, .key(.character("r")), .pageLoaded(.refresh, .success(fresh(["n1", "n2", "n3", "n4"]))))
        #expect(state.list.selected?.id == "r1", "the selection is never lost")
        #expect(state.scrollOffset == 3)
        #expect(state.newAboveCount == 3)
        #expect(view(state, width: 50, height: 14).lines[0].hasPrefix(" FoodPin · Discover · ↑ 3 new"))
    }

    @Test func scrolledDownTheReaderKeepsTheirPlaceAndTheTitleCountsTheNewOnes() {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 14, config: textOnly) // 3 rows
        for _ in 0..<5 { send(&state, .key(.character("j"))) }
        #expect(state.scrollOffset == 3)
        let before = Array(view(state, width: 50, height: 14).lines[2..<11])
        send(&state, .key(.character("r")), .pageLoaded(.refresh, .success(fresh(["new2", "new1"]))))
        #expect(state.list.selected?.id == "r5")
        #expect(state.scrollOffset == 5)
        let grid = view(state, width: 50, height: 14)
        #expect(Array(grid.lines[2..<11]) == before, "the rows on screen do not move")
        #expect(grid.lines[0] == " FoodPin · Discover · ↑ 2 new      12 restaurants ")

        // Scrolling up to one of them counts it as seen.
        for _ in 0..<6 { send(&state, .key(.character("k"))) }
        #expect(state.scrollOffset == 1)
        #expect(view(state, width: 50, height: 14).lines[0].contains("↑ 1 new"))
        // g goes to them.
        send(&state, .key(.character("g")))
        #expect(state.list.selected?.id == "new2")
        #expect(state.newAboveCount == 0)
        #expect(view(state, width: 50, height: 14).lines[0].hasPrefix(" FoodPin · Discover   "))
    }

    @Test func asciiTerminalsGetACaret() {
        var config = textOnly
        config.unicode = false
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 14, config: config)
        for _ in 0..<5 { send(&state, .key(.character("j"))) }
        send(&state, .key(.character("r")), .pageLoaded(.refresh, .success(fresh(["new"]))))
        #expect(view(state, width: 50, height: 14).lines[0].contains("Discover · ^ 1 new"))
    }

    @Test func theLiveBannersRShowsTheNewRowAtTheTop() {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 20, config: textOnly)
        send(&state, .key(.character("j")), .key(.character("j")), .key(.character("j")))
        send(&state, .remoteChanges([RemoteChange(recordID: "b1", kind: .created)]))
        #expect(send(&state, .key(.character("r"))) == [.refresh(limit: 50)])
        send(&state, .pageLoaded(.refresh, .success(fresh(["b1"]))))
        #expect(names(view(state, width: 50, height: 20)).first == "Restaurant b1")
        #expect(state.list.selected?.id == "r3")
    }

    @Test func afterTheFormSavesWhileScrolledTheSavedRowIsSelectedAtTheTop() {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 14, config: textOnly)
        for _ in 0..<6 { send(&state, .key(.character("j"))) }
        send(&state, .key(.character("a")))
        #expect(state.screen == .form)
        send(&state, .saveSucceeded(.fixture("mine", "Restaurant mine", minutesAgo: 0)))
        #expect(state.screen == .list)
        #expect(state.list.selected?.id == "mine")
        #expect(state.scrollOffset == 0)
        #expect(names(view(state, width: 50, height: 14)).first == "Restaurant mine")
        #expect(state.newAboveCount == 0)
    }

    @Test func aRefreshArrivingWhileTheFormIsOpenStillKeepsTheTopInView() {
        var state = AppState.loaded(restaurants(0..<10), width: 50, height: 14, config: textOnly)
        send(&state, .key(.character("j")), .key(.character("r")), .key(.character("a")))
        send(&state, .pageLoaded(.refresh, .success(fresh(["new"]))))
        send(&state, .key(.escape))
        #expect(state.screen == .list)
        #expect(names(view(state, width: 50, height: 14)) == ["Restaurant new", "Restaurant r0", "Restaurant r1"])
        #expect(state.list.selected?.id == "r1")
    }
}
