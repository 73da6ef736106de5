import Foundation
import LocalCloud

extension StoreOpener {
    /// Opens every container on the PostgreSQL database at `url` (one schema per container and environment).
    ///
    /// ```swift
    /// configuration.storeOpener = .postgres(try PostgresURL("postgresql://lc@db:5432/foodpin"))
    /// ```
    package static func postgres(_ url: PostgresURL) -> StoreOpener {
        StoreOpener(id: url.description) { configuration in
            try await PostgresStore.open(url: url, containerIdentifier: configuration.containerIdentifier,
                                   environment: configuration.environment, checksIndexes: configuration.checksIndexes,
                                   cacheDirectory: configuration.dataDirectory
                                       .appendingPathComponent(configuration.containerIdentifier, isDirectory: true)
                                       .appendingPathComponent("\(configuration.environment.rawValue)-postgres-cache", isDirectory: true),
                                   clock: configuration.clock)
        }
    }
}
