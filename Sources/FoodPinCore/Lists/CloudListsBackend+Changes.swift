import Foundation
import LocalCloud

extension CloudListsBackend: ListsBackend {
    package func save(restaurantID: String, toList name: String) async throws -> Bool {
        try await save(restaurantNamed: restaurantID, toList: name).alreadyThere
    }

    /// The subscriptions the Lists screens listen with: entries and lists changed in my private
    /// database (participants writing to my lists) and in my shared database (owners' edits).
    static let subscriptionIDs = ["foodpin-lists-private", "foodpin-lists-shared"]

    /// Other people's changes to lists as they happen: `QuerySubscription`s on `ListEntry` and
    /// `RestaurantList` in the private and shared databases and `container.notifications`,
    /// skipping the user's own changes. A database that refuses the subscription is left out.
    package func changes() -> AsyncStream<Int> {
        let container = container
        let own = container.configuration.user.map { "_" + $0 }
        return AsyncStream<Int> { continuation in
            let task = Task {
                var subscribed: Set<String> = []
                for (database, id) in zip([container.privateCloudDatabase, container.sharedCloudDatabase], Self.subscriptionIDs) {
                    for type in [RestaurantListRecord.entryType, RestaurantListRecord.listType] {
                        let subscription = QuerySubscription(
                            recordType: type, predicate: Predicate(value: true), subscriptionID: id + "-" + type,
                            options: [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion])
                        if (try? await database.save(subscription)) != nil { subscribed.insert(id + "-" + type) }
                    }
                }
                guard !subscribed.isEmpty else { continuation.finish(); return }
                for await notification in container.notifications {
                    guard subscribed.contains(notification.subscriptionID) else { continue }
                    if let own, notification.modifiedBy?.recordName == own { continue }
                    continuation.yield(1)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
