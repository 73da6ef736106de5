import Foundation
import Synchronization

/// What a container's databases share: the configuration and the lazily opened store.
final class ContainerCore: Sendable {
    let configuration: Container.Configuration
    /// Shared by the cores of one container acting as different users (the server's case).
    private let slot: StoreSlot

    init(configuration: Container.Configuration) {
        self.configuration = configuration
        slot = StoreSlot()
    }

    private init(configuration: Container.Configuration, slot: StoreSlot) {
        self.configuration = configuration
        self.slot = slot
    }

    /// The same container and open store, seen by `user`.
    func acting(as user: String?) -> ContainerCore {
        var configuration = configuration
        configuration.user = user.flatMap { $0.isEmpty ? nil : $0 }
        return ContainerCore(configuration: configuration, slot: slot)
    }

    /// The store, opened on first use; opening errors surface in the operation that needed it,
    /// and the next call tries again.
    ///
    /// A configuration's ``Container/Configuration/storeOpener`` (PostgreSQL, set by `LocalCloudPostgres`)
    /// comes first; then a server (``Container/Configuration/serverURL``, the remote store);
    /// otherwise the embedded SQLite file in the data directory.
    func store() async throws -> any CloudStore {
        if let opened = slot.opened.withLock({ $0 }) { return opened }
        guard let opener = configuration.storeOpener else {
            // Opening a file may wait on a file lock (a migration in another process): off the pool.
            return try await BlockingThread.run("open") { [self] in try localStore() }
        }
        let configuration = configuration
        let opening = slot.opening.withLock { opening in
            if let opening { return opening }
            let task = Task { try await opener.open(configuration) }
            opening = task
            return task
        }
        do {
            let store = try await opening.value
            slot.opened.withLock { $0 = $0 ?? store }
            return store
        } catch {
            slot.opening.withLock { if $0 == opening { $0 = nil } }
            throw error
        }
    }

    /// The embedded or remote store (both local files to open), opened on this thread if need be.
    /// - Throws: `internalError` for a store that comes from an opener (PostgreSQL): it opens only through ``store()``.
    func localStore() throws -> any CloudStore {
        if let opened = slot.opened.withLock({ $0 }) { return opened }
        // One opener at a time, outside `opened`'s lock: a caller that only reads it never waits
        // behind a migration.
        return try slot.openLock.withLock { _ in
            if let opened = slot.opened.withLock({ $0 }) { return opened }
            let store: any CloudStore
            if configuration.storeOpener != nil {
                throw CloudError(.internalError, "This container's store opens asynchronously")
            } else if configuration.serverURL != nil {
                store = try RemoteStore.open(configuration: configuration)
            } else {
                store = try SQLiteStore.open(
                    fileURL: configuration.databaseURL, assetsDirectory: configuration.assetsDirectory,
                    access: AccessRules(environment: configuration.environment, checksIndexes: configuration.checksIndexes),
                    clock: configuration.clock)
            }
            slot.opened.withLock { $0 = store }
            return store
        }
    }

    /// The store as a database of `scope` uses it: behind the sharing layer where the store keeps
    /// shares itself (embedded and PostgreSQL); the remote store's server applies the rules.
    func store(for scope: Database.Scope) async throws -> any CloudStore {
        let base = try await store()
        guard scope != .public, let catalog = base as? any ShareCatalog else { return base }
        return SharingStore(base: base, catalog: catalog, cache: slot.shareCache, urlBase: configuration.shareURLBase)
    }

    /// The sharing layer over this container's store, `nil` for a remote container.
    func sharingStore() async throws -> SharingStore? {
        try await store(for: .private) as? SharingStore
    }

    /// The store if it is open already, without opening it.
    var openedStore: (any CloudStore)? { slot.opened.withLock { $0 } }

    /// The embedded store, for tests and checks of SQLite's own invariants.
    func sqliteStore() async throws -> SQLiteStore {
        guard let store = try await store() as? SQLiteStore else {
            throw CloudError(.internalError, "This container's store is not the embedded SQLite store")
        }
        return store
    }

    func context(_ scope: Database.Scope) -> StoreContext {
        StoreContext(scope: scope, user: configuration.user, assetSizeLimit: configuration.assetSizeLimit)
    }
}

/// The one open store of a container, however many users act on it.
private final class StoreSlot: Sendable {
    let opened = Mutex<(any CloudStore)?>(nil)
    /// Held while a local store opens (on a blocking thread), so it opens once.
    let openLock = Mutex<Void>(())
    /// The open in progress, which concurrent first calls share.
    let opening = Mutex<Task<any CloudStore, any Error>?>(nil)
    let shareCache = ShareCatalogCache()
}
