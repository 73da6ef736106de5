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

extension CloudListsBackend {
    /// The list changes queued while the server was away that it refused on upload, oldest first
    /// (none for a local container, which refuses at once).
    package func refusedChanges() -> [RefusedListChange] {
        container.pendingChanges().compactMap { change in
            guard let reason = change.failure, change.recordID.zoneID.zoneName == RestaurantListRecord.zoneName else { return nil }
            if let record = change.record, record.recordType != RestaurantListRecord.entryType { return nil }
            let owner = change.recordID.zoneID.ownerName
            return RefusedListChange(restaurant: change.record?[RestaurantListRecord.name] as? String, isRemoval: change.isDelete,
                                     owner: owner == RecordZone.ID.currentUserName ? nil : RestaurantRecord.userName(fromRecordName: owner),
                                     reason: reason)
        }
    }

    /// Whether list changes made while away still wait to upload.
    package var hasWaitingChanges: Bool {
        container.pendingChanges().contains { $0.failure == nil && $0.recordID.zoneID.zoneName == RestaurantListRecord.zoneName }
    }

    /// ``overview()``, after the changes queued while away have gone up (up to `timeout`, and only
    /// once the server answers): the counts include them, and a refusal is in ``RestaurantListsOverview/refused``.
    package func overviewAfterUploads(upTo timeout: Duration = .seconds(10)) async throws -> RestaurantListsOverview {
        let first = try await overview()
        return try await overviewOnceUploaded(upTo: timeout) ?? first
    }

    /// While list changes made while away still upload: ``overview()`` once they have gone up (or
    /// after `timeout`); `nil` when none wait or the server is away. The screen calls it again after
    /// showing ``overviewAfterUploads(upTo:)``, so an upload slower than that still shows its outcome.
    package func overviewOnceUploaded(upTo timeout: Duration) async throws -> RestaurantListsOverview? {
        guard hasWaitingChanges, container.serverIsReachable == true else { return nil }
        await container.waitForUploads(upTo: timeout)
        return try await overview()
    }
}
