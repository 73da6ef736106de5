import Foundation
import LocalCloud
import Testing
@testable import FoodPinCore

/// What the status line says about where the data lives and when the server is away or
/// refuses the saved sign-in. The list on screen always stays.
@Suite struct RemoteStatusTests {
    func remoteConfig() -> AppConfig {
        var config = AppConfig(currentUser: "alice", formServices: .fake())
        config.dataLocation = "cloud.example"
        return config
    }

    @Test func theStatusLineNamesWhereTheDataLives() {
        let local = AppState.loaded(restaurants(0..<3), width: 50, height: 12)
        #expect(view(local, width: 50, height: 12).lines[1].trimmingCharacters(in: .whitespaces) == "local")
        let remote = AppState.loaded(restaurants(0..<3), width: 50, height: 12, config: remoteConfig())
        #expect(view(remote, width: 50, height: 12).lines[1].trimmingCharacters(in: .whitespaces) == "cloud.example")
    }

    @Test func aRevokedTokenSaysSignedOutOnOneLineAndKeepsTheList() {
        var state = AppState.loaded(restaurants(0..<3), width: 50, height: 12, config: remoteConfig())
        let refused = CloudError(.notAuthenticated, "Unknown or revoked web auth token",
                                 cause: ServerRefusedCredentials(serverErrorCode: "AUTHENTICATION_FAILED"))
        send(&state, .key(.character("r")))
        send(&state, .pageLoaded(.refresh, .failure(DiscoverError(refused, while: .loadFailed))))
        let lines = view(state, width: 50, height: 12).lines
        #expect(lines[1].trimmingCharacters(in: .whitespaces) == "✗ Signed out: run foodpin login — r to retry")
        #expect(state.list.count == 3, "the cached list stays")
        #expect(lines[2].contains("Restaurant r0"))

        // Without a server (no account in the embedded store) the old wording stays.
        let local = DiscoverError(CloudError(.notAuthenticated, "No account"), while: .loadFailed)
        #expect(local.code == .permissionDenied)
        #expect(local.banner(couldNot: "load restaurants", cached: 0) == "Couldn't load restaurants: Not signed in: No account")
    }

    @Test func anUnreachableServerSaysOfflineWithTheRowsOnScreen() {
        var state = AppState.loaded(restaurants(0..<3), width: 50, height: 12, config: remoteConfig())
        send(&state, .key(.character("r")))
        let down = CloudError(.networkUnavailable, "Cannot reach cloud.example: Connection refused")
        send(&state, .pageLoaded(.refresh, .failure(DiscoverError(down, while: .loadFailed))))
        #expect(view(state, width: 50, height: 12).lines[1].trimmingCharacters(in: .whitespaces) == "✗ offline · 3 cached — r to retry")
        #expect(state.list.count == 3)
        let refused = DiscoverError(CloudError(.networkFailure, "Refused cloud.example's TLS certificate: unable to get local issuer certificate"),
                                    while: .loadFailed)
        #expect(refused.banner(couldNot: "load restaurants", cached: 0)
                == "offline · 0 cached · Refused cloud.example's TLS certificate: unable to get local issuer certificate",
                "a connection that broke says why")
    }
}

extension RemoteStatusTests {
    @Test func aPageFromTheCacheShowsTheListAndSaysOffline() {
        var state = AppState(config: remoteConfig(), width: 50, height: 12, now: testNow)
        send(&state, .start)
        var cached = page(restaurants(0..<2))
        cached.isFromCache = true
        send(&state, .pageLoaded(.first, .success(cached)))
        let lines = view(state, width: 50, height: 12).lines
        #expect(lines[1].trimmingCharacters(in: .whitespaces) == "✗ offline · 2 cached — r to retry")
        #expect(lines[2].contains("Restaurant r0"), "the cached list is drawn at once")
        #expect(send(&state, .key(.character("r"))) == [.refresh(limit: 50)], "r asks the server again")
        send(&state, .pageLoaded(.refresh, .success(page(restaurants(0..<3)))))
        #expect(state.errorBanner == nil, "back online: the status clears")
    }
}

extension RemoteStatusTests {
    @Test func anAddWaitingToUploadIsMarkedAndARefusalIsShownOnItsRow() {
        var items = restaurants(0..<2)
        items[0].isWaiting = true
        items[1].isWaiting = true
        items[1].uploadFailure = "Permission Failure: not yours"
        let state = AppState.loaded(items, width: 50, height: 12, config: remoteConfig())
        let lines = view(state, width: 50, height: 12).lines
        #expect(lines[4].contains("⧗ waiting to upload"))
        #expect(lines[7].contains("✗ not uploaded: Permission Failure: no"), "never silently dropped")
    }
}

extension RemoteStatusTests {
    @Test func aClockThatIsOffIsSaidOnTheStatusLineAndTimesUseTheServers() {
        var state = AppState.loaded(restaurants(0..<3), width: 60, height: 12, config: remoteConfig())
        state.clockOffset = -5 * 3600 - 40   // the server reads 5 h earlier: this clock is ahead
        #expect(view(state, width: 60, height: 12).lines[1].trimmingCharacters(in: .whitespaces) == "cloud.example · clock 5 h ahead")
        state.clockOffset = 7 * 60
        #expect(state.clockNote == "clock 7 min behind")
        state.clockOffset = 119
        #expect(state.clockNote == nil, "within two minutes is not worth a word")
        #expect(view(state, width: 60, height: 12).lines[1].trimmingCharacters(in: .whitespaces) == "cloud.example")
    }
}

