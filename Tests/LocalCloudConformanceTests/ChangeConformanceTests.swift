import Foundation
import Synchronization
import Testing
import LocalCloud

/// Zones, change tokens, subscriptions and notifications: the same on every store.
@Suite(.serialized) struct ChangeConformanceTests {
    @Test(arguments: StoreKind.allCases)
    func zoneChangesSinceATokenIncludeDeletions(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            let kept = try await db.save(restaurant("Kept", recordName: "kept"))
            let doomed = try await db.save(restaurant("Doomed", recordName: "doomed"))
            var first = try await db.recordZoneChanges(inZoneWith: .default, since: nil)
            var token = first.changeToken
            while first.moreComing {
                first = try await db.recordZoneChanges(inZoneWith: .default, since: token)
                token = first.changeToken
            }
            kept["name"] = "Kept, renamed"
            _ = try await db.save(kept)
            _ = try await db.deleteRecord(withID: doomed.recordID)
            let added = try await db.save(restaurant("Added", recordName: "added"))
            let changes = try await db.recordZoneChanges(inZoneWith: .default, since: token)
            let modified = Set(changes.modificationResultsByID.keys.map(\.recordName))
            #expect(modified == ["kept", "added"])
            #expect(changes.deletions.map(\.recordID.recordName) == ["doomed"])
            #expect(try changes.modificationResultsByID[kept.recordID]?.get().record["name"] as? String == "Kept, renamed")
            _ = added
            // Nothing after the new token.
            let none = try await db.recordZoneChanges(inZoneWith: .default, since: changes.changeToken)
            #expect(none.modificationResultsByID.isEmpty && none.deletions.isEmpty)
        }
    }

    /// FoodPin's catch-up: a token for now, then only the list's keys of what changed since.
    @Test(arguments: StoreKind.allCases)
    func changesSinceTheCurrentTokenWithDesiredKeys(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let container = try await store.container(user: "alice")
            let db = container.publicCloudDatabase
            let kept = try await db.save(restaurant("Kept", recordName: "kept"))
            let doomed = try await db.save(restaurant("Doomed", recordName: "doomed"))
            let token = try await container.currentChangeToken()
            kept["name"] = "Kept, renamed"
            _ = try await db.save(kept)
            _ = try await db.deleteRecord(withID: doomed.recordID)
            let changes = try await db.recordZoneChanges(inZoneWith: .default, since: token, desiredKeys: ["name"])
            #expect(changes.deletions.map(\.recordID.recordName) == ["doomed"])
            let record = try #require(try changes.modificationResultsByID[kept.recordID]?.get().record)
            #expect(record["name"] as? String == "Kept, renamed")
            #expect(record.allKeys() == ["name"], "only the desired keys")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func customZonesInThePrivateDatabase(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").privateCloudDatabase
            let zone = try await db.save(RecordZone(zoneName: "Trips"))
            #expect(zone.zoneID.zoneName == "Trips")
            let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "in-zone", zoneID: zone.zoneID))
            record["name"] = "Zoned"
            _ = try await db.save(record)
            let zones = try await db.allRecordZones().map(\.zoneID.zoneName)
            #expect(zones.contains("Trips"))
            let changes = try await db.databaseChanges(since: nil)
            #expect(changes.modifications.map(\.zoneID.zoneName).contains("Trips"))
            _ = try await db.deleteRecordZone(withID: zone.zoneID)
            let error = await cloudError { _ = try await db.record(for: record.recordID) }
            #expect(error?.code == .zoneNotFound || error?.code == .unknownItem)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func subscriptionsAreSavedFetchedAndDeleted(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            let subscription = QuerySubscription(recordType: "Restaurant", predicate: Predicate(value: true),
                                                 subscriptionID: "new-restaurants", options: [.firesOnRecordCreation])
            _ = try await db.save(subscription)
            #expect(try await db.allSubscriptions().map(\.subscriptionID) == ["new-restaurants"])
            _ = try await db.deleteSubscription(withID: "new-restaurants")
            #expect(try await db.allSubscriptions().isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anotherUsersSaveArrivesAsANotification(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.container(user: "alice")
            let bob = try await store.container(user: "bob")
            _ = try await alice.publicCloudDatabase.save(QuerySubscription(
                recordType: "Restaurant", predicate: Predicate(format: "type == %@", "Ramen"),
                subscriptionID: "ramen", options: [.firesOnRecordCreation, .firesOnRecordDeletion]))
            let received = NotificationBox()
            let listener = Task {
                for await notification in alice.notifications {
                    received.append(notification)
                }
            }
            defer { listener.cancel() }
            // Saves until the watcher is running: a notification for an earlier save is not replayed.
            var saved: [Record.ID] = []
            let arrived = try await poll(timeout: .seconds(30)) {
                let record = try await bob.publicCloudDatabase.save(restaurant("Ramen \(saved.count)", type: "Ramen"))
                saved.append(record.recordID)
                return await poll(timeout: .milliseconds(500)) { !received.items.isEmpty }
            }
            #expect(arrived)
            let first = try #require(received.items.first)
            #expect(first.subscriptionID == "ramen")
            #expect(first.queryNotificationReason == .recordCreated)
            #expect(first.recordID.map { saved.contains($0) } == true)
            // A save the predicate does not match fires nothing; a deletion does.
            // Delivery is in commit order, so once the deletion is seen the cafe would have been too.
            let cafe = try await bob.publicCloudDatabase.save(restaurant("Not ramen", type: "Cafe"))
            _ = try await bob.publicCloudDatabase.deleteRecord(withID: saved[0])
            #expect(await poll { received.items.contains { $0.queryNotificationReason == .recordDeleted && $0.recordID == saved[0] } })
            #expect(!received.items.contains { $0.recordID == cafe.recordID })
        }
    }
}

/// Notifications collected by a listener task.
final class NotificationBox: Sendable {
    private let storage = Mutex<[LocalCloud.Notification]>([])
    var items: [LocalCloud.Notification] { storage.withLock { $0 } }
    func append(_ notification: LocalCloud.Notification) { storage.withLock { $0.append(notification) } }
}
