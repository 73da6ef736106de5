import Foundation

/// The sync state of a container whose store keeps an offline cache and an outbox (a remote
/// container): what an app shows about being offline and what waits to upload. A local
/// container's store answers at once, so each reads as "nothing pending, nothing cached".
extension Container {
    /// The store's offline capability, or `nil` for a store without one. A remote store is local
    /// files to open (its cache and outbox), so this opens it at once if need be.
    private var offlineStore: (any OfflineCapable)? {
        guard configuration.storeOpener == nil, configuration.serverURL != nil else { return nil }
        return (try? core.localStore())?.offline
    }

    /// Creates and deletes made while the server could not be reached, oldest first, that have not
    /// reached it yet (with the server's reason when it refused one). Always empty for a local container.
    public func pendingChanges() -> [PendingChange] {
        guard let store = offlineStore else { return [] }
        return (try? store.pendingChanges()) ?? []
    }

    /// For a remote container: drops the changes of `recordID` that the server refused, once the
    /// user resolved them (kept the server's version, or saved again over it); changes still
    /// waiting to upload stay. Does nothing for a local container, which refuses at once.
    ///
    /// ```swift
    /// try container.discardRefusedChanges(of: Record.ID(recordName: "cafe"))   // "keep theirs"
    /// ```
    /// - Returns: how many refused changes were dropped.
    @discardableResult
    public func discardRefusedChanges(of recordID: Record.ID) throws -> Int {
        guard let store = offlineStore else { return 0 }
        return try store.discardRefusedChanges(of: recordID)
    }

    /// For a remote container: whether its last request reached the server (`false` while reads
    /// come from the local cache and changes wait in the outbox). `nil` for a local container.
    public var serverIsReachable: Bool? {
        offlineStore?.isReachable
    }

    /// For a remote container: the server's change token its local cache is current to (the
    /// catch-up moves it once it has applied what changed), `nil` before anything was cached and
    /// for a local container.
    package var cacheChangeToken: String? {
        (try? offlineStore?.cacheChangeToken()) ?? nil
    }

    /// For a remote container: the first page `query` answered in the public database when last read from the server,
    /// from the local cache without a request (`nil` when it was never read, and for a local
    /// container, whose store answers as fast). A launch draws it at once, then asks the server.
    public func cachedRecords(matching query: Query, inZoneWith zoneID: RecordZone.ID = .default,
                              desiredKeys: [String]? = nil, resultsLimit: Int) async throws -> (records: [Record], cursor: Query.Cursor?)? {
        guard let store = offlineStore else { return nil }
        let request = try QueryRequest(query: query, zoneID: zoneID, limit: QueryOperation.pageSize(resultsLimit), desiredKeys: desiredKeys)
        let context = core.context(.public)
        // Off the caller's thread: the cache is a SQLite file.
        return try await Task.detached {
            try store.cachedQueryRecords(request, context: context).map { ($0.records, $0.cursor) }
        }.value
    }

    /// For a remote container: the server's clock minus this machine's, in seconds, from the
    /// `Date` of its last answer (`nil` before one, and for a local container).
    public var serverClockOffset: TimeInterval? {
        offlineStore?.serverClockOffset
    }
}

extension Container {
    /// For a remote container: whether the server answers now, then each change (`true` again
    /// once it answers after being away, when the catch-up and the outbox's upload have started
    /// on their own). While a notification stream is open (`notifications`), its loss is noticed
    /// at once and confirmed by a probe, with no request of the app's. Empty for a local container.
    public func reachabilityChanges() -> AsyncStream<Bool> {
        guard let store = offlineStore else { return AsyncStream { $0.finish() } }
        return store.reachabilityChanges()
    }
}

extension Container {
    /// For a remote container: returns once nothing in the outbox waits to upload (refused changes
    /// stay, marked), or after `timeout`; at once for a local container and when the server is away.
    public func waitForUploads(upTo timeout: Duration) async {
        guard let store = offlineStore, store.isReachable else { return }
        await store.waitForUploads(upTo: timeout)
    }
}
