import Foundation
import Testing
@testable import FoodPinCore

/// The status line follows the server with no keypress, and the live banner never counts what
/// the list already shows.
@Suite struct ReachabilityTests {
    func remote(_ items: [Restaurant] = restaurants(0..<3)) -> AppState {
        var config = AppConfig(currentUser: "alice", formServices: .fake())
        config.dataLocation = "cloud.example"
        return AppState.loaded(items, width: 50, height: 12, config: config)
    }

    func status(_ state: AppState) -> String {
        view(state, width: 50, height: 12).lines[1].trimmingCharacters(in: .whitespaces)
    }

    @Test func startListensForTheServer() {
        var state = AppState(config: AppConfig(formServices: .fake()), now: testNow)
        #expect(send(&state, .start).contains(.watchReachability))
    }

    @Test func losingTheServerSaysOfflineWithoutAKeyAndItsReturnRefreshesOnItsOwn() {
        var state = remote()
        #expect(status(state) == "cloud.example")
        #expect(send(&state, .reachabilityChanged(true)) == [], "the first report, reachable, changes nothing")
        #expect(send(&state, .reachabilityChanged(false)) == [])
        #expect(status(state) == "✗ offline · 3 cached — r to retry")
        #expect(state.isOffline)
        #expect(state.list.count == 3, "the list stays")

        #expect(send(&state, .reachabilityChanged(true)) == [.refresh(limit: 50)], "the list catches up on its own")
        #expect(!state.isOffline)
        #expect(status(state) == "⠋ Refreshing…" || status(state).hasSuffix("Refreshing…"))
        send(&state, .pageLoaded(.refresh, .success(page(restaurants(0..<4)))))
        #expect(status(state) == "cloud.example", "back to the server's name")
        #expect(state.list.count == 4)
    }

    /// `r`, then the network drops: the page was read before the drop but lands after the
    /// container said so. The status stays offline (it once went back to the server's name, and
    /// with no further report, stayed there while the server was away).
    @Test func aRefreshReadJustBeforeTheDropLandingAfterItStaysOffline() {
        var state = remote()
        send(&state, .reachabilityChanged(true))
        #expect(send(&state, .key(.character("r"))) == [.refresh(limit: 50)])
        send(&state, .reachabilityChanged(false))
        send(&state, .pageLoaded(.refresh, .success(page(restaurants(0..<4)))))
        #expect(state.isOffline)
        #expect(status(state) == "✗ offline · 4 cached — r to retry")
        #expect(state.list.count == 4, "the page it read is shown")

        #expect(send(&state, .reachabilityChanged(true)) == [.refresh(limit: 50)], "its return still catches up")
        send(&state, .pageLoaded(.refresh, .success(page(restaurants(0..<4)))))
        #expect(!state.isOffline)
        #expect(status(state) == "cloud.example")
    }

    @Test func aServerBackAfterAnOfflineLaunchLoadsTheList() {
        var state = AppState(config: remote().config, width: 50, height: 12, now: testNow)
        send(&state, .start)
        send(&state, .pageLoaded(.first, .failure(DiscoverError(.offline, ""))))
        #expect(status(state).hasPrefix("✗ offline · 0 cached"))
        #expect(send(&state, .reachabilityChanged(true)) == [.loadFirstPage(limit: 50)])
    }

    @Test func aMorePressingErrorIsNotReplacedByOffline() {
        var state = remote()
        send(&state, .key(.character("r")))
        send(&state, .pageLoaded(.refresh, .failure(DiscoverError(.signedOut, "Signed out: run foodpin login"))))
        send(&state, .reachabilityChanged(false))
        #expect(status(state) == "✗ Signed out: run foodpin login — r to retry")
        send(&state, .reachabilityChanged(true))
        #expect(status(state) == "✗ Signed out: run foodpin login — r to retry", "reconnecting does not hide it")
    }

    @Test func aNewRestaurantTheRefreshAlreadyShowsIsNotCounted() {
        var state = remote()
        send(&state, .key(.character("r")))
        // The push comes while the refresh is on its way, or after it: either way the list shows it.
        send(&state, .remoteChanges([RemoteChange(recordID: "new1", kind: .created)]))
        #expect(state.liveBannerText == "1 new restaurant — press r")
        let fresh = [Restaurant.fixture("new1", minutesAgo: 0)] + restaurants(0..<3)
        send(&state, .pageLoaded(.refresh, .success(page(fresh))))
        #expect(state.liveBannerText == nil, "the refresh showed it: the banner does not count it")
        send(&state, .remoteChanges([RemoteChange(recordID: "new1", kind: .created)]))
        #expect(state.liveBannerText == nil, "a late push of it neither")
        send(&state, .remoteChanges([RemoteChange(recordID: "new2", kind: .created)]))
        #expect(state.liveBannerText == "1 new restaurant — press r", "one the list lacks is counted")
    }

    @Test func aChangeIsCountedUnlessTheListShowsThatVersion() {
        var items = restaurants(0..<3)
        items[1].changeTag = "v2"
        var state = remote(items)
        send(&state, .remoteChanges([RemoteChange(recordID: "r1", kind: .updated, changeTag: "v2")]))
        #expect(state.liveBannerText == nil, "the list shows version v2 already")
        send(&state, .remoteChanges([RemoteChange(recordID: "r1", kind: .updated, changeTag: "v3")]))
        #expect(state.liveBannerText == "1 changed — press r")
        send(&state, .remoteChanges([RemoteChange(recordID: "r2", kind: .updated)]))
        #expect(state.liveBannerText == "2 changed — press r", "a version not known is counted")
    }

    @Test func aRemovalTheListNoLongerShowsIsNotCounted() {
        var state = remote()
        send(&state, .remoteChanges([RemoteChange(recordID: "gone", kind: .deleted)]))
        #expect(state.liveBannerText == nil, "not on the list")
        send(&state, .remoteChanges([RemoteChange(recordID: "r2", kind: .deleted)]))
        #expect(state.liveBannerText == "1 removed — press r")
        send(&state, .remoteChanges([RemoteChange(recordID: "new", kind: .created), RemoteChange(recordID: "new", kind: .deleted)]))
        #expect(state.liveBannerText == "1 removed — press r", "added and removed since: nothing to show")
    }

    @Test func anotherMachinesEditReloadsThatThumbnailOnRefresh() {
        var items = restaurants(0..<3)
        items[1].changeTag = "v1"
        var state = remote(items)
        send(&state, .key(.character("r")))
        var edited = items
        edited[1].changeTag = "v2"
        edited[1].name = "Renamed"
        let effects = send(&state, .pageLoaded(.refresh, .success(page(edited))))
        #expect(effects.contains(.forgetThumbnails(ids: ["r1"])))
        #expect(state.list.items[1].name == "Renamed", "in place")
    }
}
