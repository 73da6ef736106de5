// The server going away and coming back, and the live banner's rule.
extension AppState {
    /// The server stopped answering: the status line says `offline · N cached` (unless a more
    /// pressing error shows). It answers again: the status goes back to the server's name and the
    /// list catches up on its own (a refresh, with what changed on every loaded page).
    mutating func reachabilityChanged(_ isReachable: Bool) -> [Effect] {
        serverReachable = isReachable
        guard isReachable else {
            if errorBanner == nil || isOfflineBanner { showOffline() } else { isOffline = true }
            return []
        }
        guard isOffline else { return [] }
        isOffline = false
        if isOfflineBanner { errorBanner = nil }
        return startRefresh()
    }

    /// A page arrived: offline if it came from the cache, or if the container has said since it
    /// was asked that the server is gone (a refresh read just before the network dropped).
    mutating func notePageSource(_ page: DiscoverPage) {
        if page.isFromCache || serverReachable == false { showOffline() } else { isOffline = false }
    }

    /// Whether the status line's error is the offline one (the only one reconnecting clears).
    var isOfflineBanner: Bool { errorBanner?.message.hasPrefix("offline") == true }

    /// Counts other users' changes for the banner, leaving out the ones the list already shows.
    mutating func noteRemoteChanges(_ changes: [RemoteChange]) {
        for change in changes where !ownChanges.contains(change.recordID) {
            let id = change.recordID
            // A record created and then changed since the last refresh is still new.
            if liveChanges[id] != .created || change.kind == .deleted {
                liveChanges[id] = change.kind
                liveChangeTags[id] = change.changeTag
            }
            if listShows(id) {
                liveChanges[id] = nil
                liveChangeTags[id] = nil
            }
        }
    }

    /// Whether the list on screen (or the full list behind a search) already shows the change
    /// counted for `id`: a new restaurant that is listed, a removed one that is not, a changed
    /// one listed at the version the change made. A refresh that read it first makes it so.
    func listShows(_ id: String) -> Bool {
        guard let kind = liveChanges[id] else { return true }
        let shown = list.restaurant(withID: id) ?? search?.savedList.restaurant(withID: id)
        switch kind {
        case .created: return shown != nil
        case .deleted: return shown == nil && list.isLoaded
        case .updated:
            guard let tag = liveChangeTags[id], let shown else { return false }
            return shown.changeTag == tag
        }
    }

    /// After the list changed (a refresh landed): forget banner counts it now shows.
    mutating func pruneLiveChanges() {
        for id in liveChanges.keys where listShows(id) {
            liveChanges[id] = nil
            liveChangeTags[id] = nil
        }
    }
}
