import Foundation

/// Opens a store that lives outside LocalCloud (PostgreSQL, in `LocalCloudPostgres`) for a configuration.
///
/// ```swift
/// configuration.storeOpener = StoreOpener(id: "postgresql://db/foodpin") { configuration in
///     try await PostgresStore.open(url: url, configuration: configuration)
/// }
/// ```
///
/// Two openers are equal when their `id`s are, so configurations stay `Hashable`.
package struct StoreOpener: Sendable, Hashable {
    package let id: String
    package let open: @Sendable (Container.Configuration) async throws -> any CloudStore

    package init(id: String, open: @escaping @Sendable (Container.Configuration) async throws -> any CloudStore) {
        self.id = id
        self.open = open
    }

    package static func == (lhs: StoreOpener, rhs: StoreOpener) -> Bool { lhs.id == rhs.id }
    package func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
