import Foundation
import Synchronization

/// What a container's databases share: the configuration and the lazily opened store.
final class ContainerCore: Sendable {
    let configuration: Container.Configuration
    private let opened = Mutex<SQLiteStore?>(nil)

    init(configuration: Container.Configuration) {
        self.configuration = configuration
    }

    /// The store, opened on first use; opening errors surface in the operation that needed it.
    func store() throws -> SQLiteStore {
        try opened.withLock { opened in
            if let opened { return opened }
            let store = try SQLiteStore.open(
                fileURL: configuration.databaseURL, assetsDirectory: configuration.assetsDirectory,
                accessPolicy: SchemaAccessPolicy(environment: configuration.environment, checksIndexes: configuration.checksIndexes))
            opened = store
            return store
        }
    }

    func context(_ scope: Database.Scope) -> StoreContext {
        StoreContext(scope: scope, user: configuration.user, assetSizeLimit: configuration.assetSizeLimit)
    }
}
