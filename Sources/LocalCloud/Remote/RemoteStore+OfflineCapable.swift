import Foundation

/// The remote store's offline cache and outbox, as the container's sync state reads them.
extension RemoteStore: OfflineCapable {
    package var offline: (any OfflineCapable)? { self }

    package var isReachable: Bool { reachable.load(ordering: .relaxed) }

    package func cacheChangeToken() throws -> String? {
        try responses.changeToken(.public)
    }

    package var serverClockOffset: TimeInterval? { client.serverClock.offset }
}
