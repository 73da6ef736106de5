import Foundation

/// Everything a container asks of its storage: the one seam between LocalCloud's API and a store.
///
/// `Container`, `Database`, the operations, the console and the server reach data only through
/// this protocol. The embedded ``SQLiteStore`` conforms here; the remote container and the
/// PostgreSQL store (in `LocalCloudPostgres`) conform in their own files, and every store runs
/// the same conformance suite.
///
/// Calls are `async`, from `Database`'s API and the server's handlers down to the driver: GRDB's
/// async access on SQLite, postgres-nio on PostgreSQL, the HTTP client's own thread for the remote
/// store. A store suspends while it waits and never blocks a thread of the cooperative pool.
package protocol CloudStore: RecordStore, SubscriptionStore, ChangeLogStore, SchemaStore, AssetStorage, ChangeFeed {
    /// A value that differs whenever the store's data may have changed (see ``ChangeStamp``).
    /// Called on the server's request path, so it must not wait on a network or a database
    /// server: read memory (a commit counter kept by notifications) or stat local files.
    func changeStamp() throws -> ChangeStamp

    /// The offline cache and outbox, for a store that has them (the remote store); `nil` otherwise.
    var offline: (any OfflineCapable)? { get }

    /// Stops background work and closes connections; the store is unusable afterwards.
    func close()
}

extension CloudStore {
    package func close() {}

    package var offline: (any OfflineCapable)? { nil }
}

/// The schema and the console's whole-store pages: what CloudKit's Console does.
package protocol SchemaStore: Sendable {
    /// The environment's current schema.
    func loadSchema() async throws -> Schema

    /// Runs `change` on the current schema in one transaction; a non-nil result is saved (and the
    /// query indexes it calls for are rebuilt). Returns the schema after the call.
    func updateSchema(rebuildingSearch: Bool, _ change: @escaping @Sendable (Schema) throws -> Schema?) async throws -> Schema

    /// Empties the environment: records, zones, subscriptions, change history, schema and assets.
    func resetAll() async throws

    /// Counts and sizes for `localcloud status`.
    func statistics() async throws -> ContainerStatistics

    /// Every record of `types` (all types when `nil`) in one zone of the context's database,
    /// oldest first, read without query indexes: what `localcloud records export` writes.
    func allRecords(zone: RecordZone.ID, types: [String]?, context: StoreContext) async throws -> [Record]

    /// Removes unreferenced assets older than `gracePeriod` seconds and stale temporary files.
    func collectGarbage(gracePeriod: TimeInterval) async throws -> GarbageCollectionReport
}

/// Content-addressed asset bytes, for a server that takes uploads before the record that uses them.
package protocol AssetStorage: Sendable {
    /// Copies `file` into the store; a record saved later names it by the returned digest.
    /// - Throws: `limitExceeded` over `sizeLimit`.
    func importAsset(from file: URL, sizeLimit: Int64) async throws -> (digest: String, size: Int64)

    /// A local file holding the asset with this digest, or `nil` when the store has none.
    func assetFile(forDigest digest: String) async throws -> URL?

    /// Where partial uploads wait while their bytes arrive.
    var uploadsDirectory: URL { get }
}

/// Where notifications come from: the change log, read after a position, woken by commits.
package protocol ChangeFeed: Sendable {
    /// A reader for one watcher (one `for await` over `container.notifications`).
    func openChangeReader() async throws -> any ChangeReader

    /// Whether the change log still holds every change after `sequence` (no compaction removed some).
    func changeLogIsComplete(afterSequence sequence: Int64) async throws -> Bool
}

/// One watcher's view of the change log.
///
/// The reads are `async` because watchers run on the cooperative pool (one thread per core): a
/// store that waits on a network or a database server must suspend there, never block.
package protocol ChangeReader: AnyObject, Sendable {
    /// The position of the last change now: a watcher that starts here replays nothing.
    func lastSequence() async throws -> Int64

    /// Returns when a commit may have happened (by any process or node), or after `timeout`.
    func waitForCommit(upTo timeout: Duration) async

    /// Whether ``waitForCommit(upTo:)`` returns for every commit by any process or node, so a
    /// watcher waits on it with a long safety timeout instead of polling (``ChangeFanout``).
    var hearsEveryCommit: Bool { get }

    /// The notifications that `user`'s subscriptions fire for change-log rows after `sequence`,
    /// in log order, and the last position read. Cheap when nothing was committed since the last call.
    func notifications(for user: String, containerIdentifier: String, after sequence: Int64) async throws -> ChangeBatch

    /// Releases the reader's connection and wake-up registration.
    func close()

    /// Whether the notifications it returns are already only those the user may read now (a remote
    /// store's server filtered them); otherwise the watcher checks the security roles itself.
    var filtersByAccess: Bool { get }

    /// Whether one reader may serve every watcher of its store (``ChangeFanout``): its reads depend
    /// on nothing but their arguments. A reader that follows one user's remote stream may not.
    var servesManyWatchers: Bool { get }

    /// For each listener, the notifications its user's subscriptions fire for rows after its own
    /// position: one read of the log for all of them. Unchanged since the last call (and not
    /// `force`d): an empty answer, every listener stays where it is.
    func notifications(for listeners: [ChangeListenerPosition], force: Bool) async throws -> [Int: ChangeBatch]
}

extension ChangeReader {
    package var filtersByAccess: Bool { false }
    package var hearsEveryCommit: Bool { false }
    package var servesManyWatchers: Bool { false }

    /// One read per listener: for readers that cannot do better.
    package func notifications(for listeners: [ChangeListenerPosition], force: Bool) async throws -> [Int: ChangeBatch] {
        var batches: [Int: ChangeBatch] = [:]
        for listener in listeners {
            batches[listener.id] = try await notifications(for: listener.user, containerIdentifier: listener.containerIdentifier,
                                                           after: listener.after)
        }
        return batches
    }
}

/// Where one watcher of a shared reader stands: its user and the last change-log position it was given.
package struct ChangeListenerPosition: Sendable {
    package var id: Int
    package var user: String
    package var containerIdentifier: String
    package var after: Int64

    package init(id: Int, user: String, containerIdentifier: String, after: Int64) {
        self.id = id
        self.user = user
        self.containerIdentifier = containerIdentifier
        self.after = after
    }
}

/// The notifications found in one read of the change log.
package struct ChangeBatch: Sendable {
    package var notifications: [Notification] = []
    /// Query subscriptions with `firesOnce` that fired: the watcher deletes them.
    package var spentSubscriptions: [(scope: Database.Scope, subscriptionID: String)] = []
    /// The last change-log position read.
    package var through: Int64
    /// The schema (grants and role members) as the reader saw it, when it can read it cheaply (the
    /// reader keeps a copy and decodes it again only when the schema's stamp changed); `nil` makes
    /// the watcher load it.
    package var schema: Schema?

    package init(through: Int64) {
        self.through = through
    }
}
