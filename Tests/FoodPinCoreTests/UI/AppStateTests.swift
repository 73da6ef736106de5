import Foundation
import Testing
@testable import FoodPinCore

@Suite struct AppStateTests {
    @Test func startLoadsTheFirstPageWithASpinner() {
        var state = AppState(config: AppConfig(pageSize: 50, formServices: .fake()), now: testNow)
        #expect(send(&state, .start) == [.loadFirstPage(limit: 50), .subscribeToChanges, .watchReachability, .subscribeToListChanges])
        #expect(state.isLoadingFirstPage)
        #expect(state.isSpinnerVisible)
    }

    @Test func theCachedPageDrawsAtOnceAndTheServersMergesWithoutMovingTheReader() {
        var state = AppState(config: AppConfig(pageSize: 50, formServices: .fake()), now: testNow)
        state.width = 80
        state.height = 12
        send(&state, .start)
        send(&state, .pageLoaded(.cached, .success(page(restaurants(0..<20), cursor: "cached"))))
        #expect(state.list.items.map(\.id) == (0..<20).map { "r\($0)" }, "drawn before the server answers")
        #expect(state.isLoadingFirstPage && state.isShowingCachedPage)
        for _ in 0..<6 { send(&state, .key(.character("j"))) }
        #expect(state.list.selected?.id == "r6")
        // The server's page: one restaurant added meanwhile, one deleted, one renamed.
        var fresh = restaurants(0..<20).filter { $0.id != "r3" }
        fresh[fresh.firstIndex { $0.id == "r5" } ?? 0].name = "Renamed"
        fresh.insert(.fixture("new", minutesAgo: 0), at: 0)
        send(&state, .pageLoaded(.first, .success(page(fresh, cursor: "server"))))
        #expect(state.list.selected?.id == "r6", "the reader stays on their row")
        #expect(state.list.items.first?.id == "new" && !state.list.items.contains { $0.id == "r3" })
        #expect(state.list.restaurant(withID: "r5")?.name == "Renamed")
        #expect(!state.isLoadingFirstPage && !state.isShowingCachedPage)
        #expect(state.list.hasMore, "the server's cursor goes on")
        // A cached page that comes after the server's is not drawn over it.
        send(&state, .pageLoaded(.cached, .success(page(restaurants(0..<3)))))
        #expect(state.list.items.first?.id == "new")
    }

    @Test func spinnerTurnsOnlyWhileLoading() {
        var state = AppState(config: AppConfig(formServices: .fake()), now: testNow)
        send(&state, .start, .tick, .tick, .tick)
        #expect(state.spinnerPhase == 3)
        send(&state, .pageLoaded(.first, .success(page(restaurants(0..<3)))), .tick, .tick)
        #expect(state.spinnerPhase == 3)
        #expect(!state.isSpinnerVisible)
    }

    @Test func rowsStayNewestFirst() {
        let state = AppState.loaded(restaurants(0..<5))
        #expect(state.list.items.map(\.id) == ["r0", "r1", "r2", "r3", "r4"])
        #expect(state.list.items.map(\.createdAt) == state.list.items.map(\.createdAt).sorted(by: >))
        #expect(state.list.selected?.id == "r0")
    }

    @Test func pagingLoadsMoreNearTheEndOnceAndNeverDuplicates() {
        var state = AppState.loaded(restaurants(0..<20), cursor: "c1")
        let cursor = state.list.cursor
        #expect(cursor != nil)
        #expect(!state.isLoadingMore, "the top of a long page needs no more yet")
        let effects = send(&state, .key(.character("G")))
        #expect(effects.contains(.loadNextPage(cursor!, limit: 50)))
        #expect(state.isLoadingMore)
        #expect(!send(&state, .key(.character("k"))).contains { if case .loadNextPage = $0 { true } else { false } })
        send(&state, .pageLoaded(.next, .success(page(restaurants(18..<30), cursor: nil))))
        #expect(state.list.items.map(\.id) == (0..<30).map { "r\($0)" })
        #expect(!state.list.hasMore)
        #expect(!state.isLoadingMore)
        #expect(send(&state, .key(.end)).allSatisfy { if case .loadNextPage = $0 { false } else { true } })
    }

    @Test func aFailedPageShowsABannerAndRRetries() {
        var state = AppState.loaded(restaurants(0..<6), cursor: "c1")
        #expect(state.isLoadingMore)
        send(&state, .pageLoaded(.next, .failure(DiscoverError(.loadFailed, "disk I/O error"))))
        #expect(state.errorBanner?.message == "Couldn't load more: disk I/O error")
        #expect(send(&state, .key(.character("j"))).isEmpty, "no retry loop on every key")
        let retry = send(&state, .key(.character("r")))
        #expect(retry.contains { if case .loadNextPage = $0 { true } else { false } })
        #expect(state.errorBanner == nil)
        #expect(state.isLoadingMore)
    }

    @Test func aFailedFirstPageShowsTheReasonAndRetries() {
        var state = AppState(config: AppConfig(formServices: .fake()), now: testNow)
        send(&state, .start, .pageLoaded(.first, .failure(DiscoverError(.loadFailed, "Permission Failure"))))
        #expect(state.errorBanner == .init(message: "Couldn't load restaurants: Permission Failure", retry: .loadFirstPage(limit: 50)))
        #expect(!state.isSpinnerVisible)
        #expect(send(&state, .key(.character("r"))) == [.loadFirstPage(limit: 50)])
        #expect(state.isLoadingFirstPage)
    }

    @Test func refreshMergesWithoutDuplicatesAndKeepsTheSelectionInPlace() {
        var state = AppState.loaded(restaurants(0..<10), width: 60, height: 14)
        for _ in 0..<5 { send(&state, .key(.character("j"))) }
        #expect(state.list.selected?.id == "r5")
        let rowOnScreen = state.list.selectedIndex! - state.scrollOffset
        #expect(send(&state, .key(.character("r"))) == [.refresh(limit: 50)])
        #expect(state.isRefreshing)
        let fresh = [Restaurant.fixture("new2", minutesAgo: 0.1), .fixture("new1", minutesAgo: 0.2)]
            + restaurants(0..<10).filter { $0.id != "r1" }
        send(&state, .pageLoaded(.refresh, .success(page(fresh))))
        #expect(state.list.items.map(\.id) == ["new2", "new1", "r0", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9"])
        #expect(Set(state.list.items.map(\.id)).count == state.list.count)
        #expect(state.list.selected?.id == "r5")
        #expect(state.list.selectedIndex! - state.scrollOffset == rowOnScreen, "the reader does not move")
        #expect(!state.isRefreshing)
    }

    @Test func upAtTheTopPullsToRefresh() {
        var state = AppState.loaded(restaurants(0..<5))
        send(&state, .key(.character("j")))
        #expect(send(&state, .key(.character("k"))).isEmpty)
        #expect(state.list.selectedIndex == 0)
        #expect(send(&state, .key(.up)) == [.refresh(limit: 50)])
        #expect(send(&state, .key(.character("k"))).isEmpty, "one refresh at a time")
        #expect(view(state, width: 60, height: 14).lines[1].contains("Refreshing…"))
    }

    @Test func navigationKeys() {
        var state = AppState.loaded(restaurants(0..<10), width: 60, height: 14) // 3 rows on screen
        send(&state, .key(.pageDown))
        #expect(state.list.selectedIndex == 2)
        send(&state, .key(.end))
        #expect(state.list.selectedIndex == 9)
        #expect(state.scrollOffset == 7)
        send(&state, .key(.home))
        #expect(state.list.selectedIndex == 0)
        #expect(state.scrollOffset == 0)
        send(&state, .key(.wheelDown), .key(.wheelDown), .key(.down))
        #expect(state.list.selectedIndex == 3)
        send(&state, .key(.pageUp))
        #expect(state.list.selectedIndex == 1)
        send(&state, .key(.character("G")), .key(.character("g")))
        #expect(state.list.selectedIndex == 0)
    }

    @Test func detailOpensAndReturnsToTheSamePlace() {
        var state = AppState.loaded(restaurants(0..<10), width: 60, height: 14)
        for _ in 0..<6 { send(&state, .key(.character("j"))) }
        let (index, offset) = (state.list.selectedIndex, state.scrollOffset)
        let effects = send(&state, .key(.enter))
        #expect(state.screen == .detail(id: "r6"))
        #expect(effects == [.loadThumbnails(ids: ["r6"], size: state.detailImageSize)])
        send(&state, .key(.character("j")), .key(.escape))
        #expect(state.screen == .list)
        #expect(state.list.selectedIndex == index)
        #expect(state.scrollOffset == offset)
        send(&state, .key(.enter), .key(.character("q")))
        #expect(state.screen == .list)
        #expect(!state.shouldQuit, "q in the detail view goes back")
    }

    @Test func detailScrollStopsAtTheEndOfTheDescription() {
        var item = Restaurant.fixture("d", minutesAgo: 1)
        item.description = (1...6).map { "line \($0)" }.joined(separator: "\n")
        var state = AppState.loaded([item], width: 80, height: 24)
        send(&state, .key(.enter))
        for _ in 0..<50 { send(&state, .key(.character("j"))) }
        #expect(state.detailScroll == 5)
        send(&state, .key(.character("k")))
        #expect(state.detailScroll == 4)
    }

    @Test func qQuitsFromTheListWithExitCodeZero() {
        var state = AppState.loaded(restaurants(0..<2))
        #expect(send(&state, .key(.character("q"))) == [.quit])
        #expect(state.shouldQuit)
        #expect(state.exitCode == 0)
    }

    @Test func helpOpensAndCloses() {
        var state = AppState.loaded(restaurants(0..<2))
        send(&state, .key(.character("?")))
        #expect(state.isHelpVisible)
        send(&state, .key(.character("j")))
        #expect(state.list.selectedIndex == 0, "keys do not leak through the help screen")
        send(&state, .key(.escape))
        #expect(!state.isHelpVisible)
    }

    // MARK: Live banner (issue 6)

    @Test func liveBannerAppearsMergesAndNeverMovesTheList() {
        var state = AppState.loaded(restaurants(0..<10), width: 60, height: 14)
        for _ in 0..<4 { send(&state, .key(.character("j"))) }
        let before = (state.list.selectedIndex, state.scrollOffset, state.list.items)
        let listRowsBefore = Array(view(state, width: 60, height: 14).lines[2...])
        send(&state, .remoteChanges([RemoteChange(recordID: "b1", kind: .created)]))
        #expect(state.liveBannerText == "1 new restaurant — press r")
        send(&state, .remoteChanges([RemoteChange(recordID: "b1", kind: .updated), RemoteChange(recordID: "b2", kind: .created)]))
        #expect(state.liveBannerText == "2 new restaurants — press r", "the same record counts once")
        #expect(state.list.selectedIndex == before.0)
        #expect(state.scrollOffset == before.1)
        #expect(state.list.items == before.2)
        let grid = view(state, width: 60, height: 14)
        #expect(grid.lines[1].contains("2 new restaurants — press r"))
        #expect(Array(grid.lines[2...]) == listRowsBefore, "the banner takes the reserved status line")

        send(&state, .key(.escape))
        #expect(state.liveBannerText == nil)
        send(&state, .remoteChanges([RemoteChange(recordID: "b3", kind: .created)]))
        #expect(send(&state, .key(.character("r"))) == [.refresh(limit: 50)])
        #expect(state.liveBannerText == nil)
        let fresh = [Restaurant.fixture("b3", minutesAgo: 0.1, by: "bob")] + restaurants(0..<10)
        send(&state, .pageLoaded(.refresh, .success(page(fresh))))
        #expect(state.list.items.first?.id == "b3")
        #expect(state.list.selected?.id == "r4")
    }

    @Test func ownSavesDoNotRaiseTheBanner() {
        var state = AppState.loaded(restaurants(0..<3))
        send(&state, .saveSucceeded(.fixture("mine", minutesAgo: 0)))
        send(&state, .remoteChanges([RemoteChange(recordID: "mine", kind: .created)]))
        #expect(state.liveBannerText == nil)
    }

    // MARK: Delete (issue 6)

    @Test func deleteAsksFirstThenHidesTheRow() {
        var state = AppState.loaded(restaurants(0..<3))
        send(&state, .key(.character("j")))
        #expect(send(&state, .key(.character("d"))).isEmpty)
        #expect(state.deleteConfirmation == "r1")
        #expect(view(state, width: 60, height: 14).lines[1].contains("Delete “Restaurant r1”? y deletes it"))
        #expect(send(&state, .key(.character("n"))).isEmpty)
        #expect(state.deleteConfirmation == nil)
        #expect(state.list.count == 3)
        send(&state, .key(.character("d")))
        #expect(send(&state, .key(.character("y"))).first == .delete(id: "r1"))
        #expect(state.list.items.map(\.id) == ["r0", "r2"])
        send(&state, .deleteSucceeded(id: "r1"))
        send(&state, .remoteChanges([RemoteChange(recordID: "r1", kind: .deleted)]))
        #expect(state.liveBannerText == nil, "our own deletion is not news")
    }

    @Test func deletingSomeoneElsesShowsThePermissionErrorAndDeletesNothing() {
        var state = AppState.loaded([.fixture("b", "Bob's Diner", minutesAgo: 1, by: "bob")])
        #expect(send(&state, .key(.character("d"))).isEmpty)
        #expect(state.deleteConfirmation == nil)
        #expect(state.errorBanner?.message.contains("Permission Failure") == true)
        #expect(state.list.count == 1)
    }

    @Test func aFailedDeleteRestoresTheRow() {
        var state = AppState.loaded(restaurants(0..<2))
        send(&state, .key(.character("d")), .key(.character("y")))
        #expect(state.list.count == 1)
        send(&state, .deleteFailed(id: "r0", DiscoverError(.permissionDenied, "Permission Failure")))
        #expect(state.list.items.map(\.id) == ["r0", "r1"])
        #expect(state.errorBanner?.message == "Couldn't delete “Restaurant r0”: Permission Failure")
    }

    // MARK: Thumbnails

    @Test func onlyVisibleRowsAskForThumbnailsAndOnlyWhenThatChanges() {
        var state = AppState(config: AppConfig(currentUser: "alice", formServices: .fake()), width: 60, height: 14, now: testNow)
        send(&state, .start)
        let effects = send(&state, .pageLoaded(.first, .success(page(restaurants(0..<10)))))
        #expect(effects == [.loadThumbnails(ids: ["r0", "r1", "r2"], size: .row)])
        #expect(send(&state, .key(.character("j"))).isEmpty, "same rows on screen: nothing new to ask")
        send(&state, .thumbnailLoaded(ThumbnailKey(recordID: "r0", size: .row), .image(FakeThumbnail(columns: 6, rows: 3))))
        #expect(state.requestedThumbnails.count == 2)
        // Scroll one row: r0 leaves, r3 arrives.
        let scrolled = send(&state, .key(.character("j")), .key(.character("j")))
        #expect(scrolled == [.loadThumbnails(ids: ["r1", "r2", "r3"], size: .row)])
        #expect(state.thumbnails.isEmpty, "thumbnails off screen are dropped (the loader's cache keeps them)")
        // A late answer for a row that left is ignored.
        send(&state, .thumbnailLoaded(ThumbnailKey(recordID: "r0", size: .row), .noImage))
        #expect(state.thumbnails[ThumbnailKey(recordID: "r0", size: .row)] == nil)
    }

    @Test func noImagesMeansNoThumbnailEffects() {
        var state = AppState(config: AppConfig(showsImages: false, formServices: .fake()), now: testNow)
        send(&state, .start)
        #expect(send(&state, .pageLoaded(.first, .success(page(restaurants(0..<10))))).isEmpty)
    }

    // MARK: The form (issue 5)

    @Test func savingFromTheFormPutsTheNewRestaurantOnTopSelected() {
        var state = AppState.loaded(restaurants(0..<5))
        send(&state, .key(.character("j")), .key(.character("a")))
        #expect(state.screen == .form)
        for msg in keys("Noodle Bar") { send(&state, msg) }
        send(&state, .key(.tab))
        for msg in keys("Ramen") { send(&state, msg) }
        send(&state, .key(.tab))
        for msg in keys("Tokyo") { send(&state, msg) }
        let effects = send(&state, .key(.control("s")))
        #expect(effects == [.save(RestaurantDraft(name: "Noodle Bar", type: "Ramen", location: "Tokyo"))])
        #expect(state.isSpinnerVisible)
        #expect(view(state, width: 60, height: 20).lines[1].contains("Saving…"))

        let saved = Restaurant.fixture("noodle", "Noodle Bar", minutesAgo: 0, type: "Ramen", location: "Tokyo")
        send(&state, .saveSucceeded(saved))
        #expect(state.screen == .list)
        #expect(state.form == nil)
        #expect(state.list.items.first?.id == "noodle")
        #expect(state.list.selected?.id == "noodle")
        send(&state, .pageLoaded(.refresh, .success(page([saved] + restaurants(0..<5)))))
        #expect(state.list.items.map(\.id).filter { $0 == "noodle" }.count == 1)
    }

    @Test func aFailedSaveKeepsTheFormOpenWithItsInput() {
        var state = AppState.loaded(restaurants(0..<2))
        send(&state, .key(.character("a")))
        for msg in keys("X") { send(&state, msg) }
        send(&state, .key(.tab))
        for msg in keys("Y") { send(&state, msg) }
        send(&state, .key(.tab))
        for msg in keys("Z") { send(&state, msg) }
        send(&state, .key(.control("s")))
        send(&state, .saveFailed(DiscoverError(.permissionDenied, "Permission Failure: no CREATE on Restaurant")))
        #expect(state.screen == .form)
        #expect(state.form?.text(.name) == "X")
        #expect(state.form?.saveError == "Permission Failure: no CREATE on Restaurant")
        #expect(view(state, width: 60, height: 20).lines[1].contains("Permission Failure"))
        // Esc asks, since something was typed.
        send(&state, .key(.escape))
        #expect(state.screen == .form)
        send(&state, .key(.character("y")))
        #expect(state.screen == .list)
    }
}

@Suite struct FormPreviewStateTests {
    @Test func typingAnImagePathShowsALivePreview() {
        let config = AppConfig(currentUser: "alice", formServices: .fake(images: ["/home/alice/food.jpg"]))
        var state = AppState.loaded(restaurants(0..<2), width: 60, height: 24, config: config)
        send(&state, .key(.character("a")))
        state.form?.focus(.image)
        var effects: [Effect] = []
        for msg in keys("~/food.jpg") { effects += send(&state, msg) }
        #expect(effects.last == .probeImage(path: "/home/alice/food.jpg"))
        #expect(!effects.contains { if case .loadPreview = $0 { true } else { false } }, "no preview before the probe answers")
        #expect(send(&state, .imageProbed(path: "/home/alice/food.jp", problem: "No such file")).isEmpty)
        #expect(send(&state, .imageProbed(path: "/home/alice/food.jpg", problem: nil))
                == [.loadPreview(path: "/home/alice/food.jpg", size: RestaurantForm.previewSize)])
        send(&state, .previewLoaded(path: "/home/alice/food.jpg", .image(FakeThumbnail(columns: 8, rows: 4, fill: "▓"))))
        let grid = view(state, width: 60, height: 24)
        #expect(grid.lines.filter { $0.contains("▓▓▓▓▓▓▓▓") }.count == 4)
    }
}
