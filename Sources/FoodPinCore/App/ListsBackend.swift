/// The store operations the Lists screens need, in their own terms (``CloudListsBackend`` on LocalCloud).
package protocol ListsBackend: Sendable {
    func overview() async throws -> RestaurantListsOverview
    /// The overview once the changes made while away have uploaded (a refused one is in `refused`).
    func overviewAfterUploads(upTo timeout: Duration) async throws -> RestaurantListsOverview
    /// While changes made while away still upload: the overview once they have (or after
    /// `timeout`); `nil` when none wait.
    func overviewOnceUploaded(upTo timeout: Duration) async throws -> RestaurantListsOverview?
    func entries(of ref: RestaurantListRef) async throws -> [Restaurant]
    /// Saves a restaurant (record name) to the list with that name; a new list of mine when none has it.
    /// Returns whether it was on the list already.
    func save(restaurantID: String, toList name: String) async throws -> Bool
    func removeEntry(_ entry: String, from ref: RestaurantListRef) async throws
    /// Other participants' changes to lists, as they happen (how many records changed).
    func changes() -> AsyncStream<Int>
}

extension ListsBackend {
    package func overviewAfterUploads(upTo timeout: Duration) async throws -> RestaurantListsOverview { try await overview() }
    package func overviewOnceUploaded(upTo timeout: Duration) async throws -> RestaurantListsOverview? { nil }
    package func changes() -> AsyncStream<Int> { AsyncStream { $0.finish() } }
}
