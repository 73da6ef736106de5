import Foundation
import Synchronization
import Testing
@testable import LocalCloud

/// Subscription kinds, CloudKit's database rules, and save/fetch/delete through both APIs.
@Suite struct SubscriptionTests {
    static let everything: QuerySubscription.Options = [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion]

    @Test func querySubscriptionsArePublicAndPrivateOnly() async throws {
        let cloud = TestCloud()
        let container = cloud.container()
        func subscription() -> QuerySubscription {
            QuerySubscription(recordType: "Restaurant", predicate: Predicate(value: true), subscriptionID: "q", options: Self.everything)
        }
        _ = try await container.publicCloudDatabase.save(subscription())
        _ = try await container.privateCloudDatabase.save(subscription())
        #expect(await code { _ = try await container.sharedCloudDatabase.save(subscription()) } == .invalidArguments)
    }

    @Test func zoneSubscriptionsArePrivateOnlyAndNotTheDefaultZone() async throws {
        let cloud = TestCloud()
        let container = cloud.container()
        let zone = RecordZone.ID(zoneName: "Favourites")
        _ = try await container.privateCloudDatabase.save(RecordZone(zoneID: zone))
        _ = try await container.privateCloudDatabase.save(RecordZoneSubscription(zoneID: zone, subscriptionID: "z"))
        #expect(await code { _ = try await container.publicCloudDatabase.save(RecordZoneSubscription(zoneID: zone, subscriptionID: "z")) } == .invalidArguments)
        #expect(await code { _ = try await container.sharedCloudDatabase.save(RecordZoneSubscription(zoneID: zone, subscriptionID: "z")) } == .invalidArguments)
        #expect(await code { _ = try await container.privateCloudDatabase.save(RecordZoneSubscription(zoneID: .default, subscriptionID: "d")) } == .invalidArguments)
    }

    @Test func databaseSubscriptionsArePrivateAndSharedOnly() async throws {
        let cloud = TestCloud()
        let container = cloud.container()
        _ = try await container.privateCloudDatabase.save(DatabaseSubscription(subscriptionID: "db"))
        _ = try await container.sharedCloudDatabase.save(DatabaseSubscription(subscriptionID: "db"))
        #expect(await code { _ = try await container.publicCloudDatabase.save(DatabaseSubscription(subscriptionID: "db")) } == .invalidArguments)
    }

    @Test func invalidSubscriptionsAreRejected() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let noOptions = QuerySubscription(recordType: "Restaurant", predicate: Predicate(value: true), subscriptionID: "n", options: [.firesOnce])
        #expect(await code { _ = try await db.save(noOptions) } == .invalidArguments)
        let badPredicate = QuerySubscription(recordType: "Restaurant", predicate: Predicate(format: "name ENDSWITH 'x'"),
                                             subscriptionID: "p", options: Self.everything)
        #expect(await code { _ = try await db.save(badPredicate) } == .invalidArguments)
        let emptyID = QuerySubscription(recordType: "Restaurant", predicate: Predicate(value: true), subscriptionID: "", options: Self.everything)
        #expect(await code { _ = try await db.save(emptyID) } == .invalidArguments)
        let noAccount = cloud.container(user: nil).publicCloudDatabase
        let fine = QuerySubscription(recordType: "Restaurant", predicate: Predicate(value: true), subscriptionID: "ok", options: Self.everything)
        #expect(await code { _ = try await noAccount.save(fine) } == .notAuthenticated)
        #expect(try await db.allSubscriptions().isEmpty)
    }

    @Test func saveFetchDeleteAndPersistAcrossContainers() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let subscription = QuerySubscription(recordType: "Restaurant", predicate: Predicate(format: "type == %@", "Thai"),
                                             subscriptionID: "thai", options: [.firesOnRecordCreation, .firesOnce])
        subscription.notificationInfo = .init(title: "New Thai place", shouldBadge: true, desiredKeys: ["name"])
        _ = try await db.save(subscription)
        _ = try await db.save(QuerySubscription(recordType: "Restaurant", predicate: Predicate(value: true), subscriptionID: "all",
                                                options: Self.everything))

        // A fresh container on the same directory reads them back from the file.
        let reopened = cloud.container().publicCloudDatabase
        let fetched = try #require(try await reopened.subscription(for: "thai") as? QuerySubscription)
        #expect(fetched.recordType == "Restaurant")
        #expect(fetched.predicate.predicateFormat == subscription.predicate.predicateFormat)
        #expect(fetched.querySubscriptionOptions == [.firesOnRecordCreation, .firesOnce])
        #expect(fetched.notificationInfo == subscription.notificationInfo)
        #expect(fetched.subscriptionType == .query)
        #expect(try await reopened.allSubscriptions().map(\.subscriptionID) == ["all", "thai"])

        // Another user, and another database, see none of them.
        #expect(try await cloud.container(user: "bob").publicCloudDatabase.allSubscriptions().isEmpty)
        #expect(try await cloud.container().privateCloudDatabase.allSubscriptions().isEmpty)

        try await reopened.deleteSubscription(withID: "thai")
        #expect(await code { _ = try await db.subscription(for: "thai") } == .unknownItem)
        #expect(await code { try await db.deleteSubscription(withID: "thai") } == .unknownItem)
        #expect(try await db.allSubscriptions().map(\.subscriptionID) == ["all"])
    }

    @Test func zoneAndDatabaseSubscriptionsRoundTrip() async throws {
        let cloud = TestCloud()
        let db = cloud.container().privateCloudDatabase
        let zone = RecordZone.ID(zoneName: "Trips")
        _ = try await db.save(RecordZone(zoneID: zone))
        _ = try await db.save(RecordZoneSubscription(zoneID: zone, subscriptionID: "trips", recordType: "Visit"))
        _ = try await db.save(DatabaseSubscription(subscriptionID: "everything"))
        let zoneSubscription = try #require(try await db.subscription(for: "trips") as? RecordZoneSubscription)
        #expect(zoneSubscription.zoneID.zoneName == "Trips")
        #expect(zoneSubscription.recordType == "Visit")
        #expect(zoneSubscription.subscriptionType == .recordZone)
        let databaseSubscription = try #require(try await db.subscription(for: "everything") as? DatabaseSubscription)
        #expect(databaseSubscription.subscriptionType == .database)
    }

    @Test func operationsReportPerItemResults() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let saved = Mutex<[String]>([])
        let deleted = Mutex<[String: Bool]>([:])
        let modify = ModifySubscriptionsOperation(
            subscriptionsToSave: [
                QuerySubscription(recordType: "Restaurant", predicate: Predicate(value: true), subscriptionID: "a", options: Self.everything),
                QuerySubscription(recordType: "Restaurant", predicate: Predicate(value: true), subscriptionID: "b", options: Self.everything),
            ],
            subscriptionIDsToDelete: ["missing"])
        modify.perSubscriptionSaveBlock = { id, result in if (try? result.get()) != nil { saved.withLock { $0.append(id) } } }
        modify.perSubscriptionDeleteBlock = { id, result in deleted.withLock { $0[id] = (try? result.get()) != nil } }
        let modifyError = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<CloudError?, any Error>) in
            modify.modifySubscriptionsResultBlock = { result in
                if case .failure(let error) = result { continuation.resume(returning: error as? CloudError) } else { continuation.resume(returning: nil) }
            }
            db.add(modify)
        }
        #expect(modifyError?.code == .partialFailure)
        #expect(modifyError?.partialErrorsByItemID[AnyHashableSendable("missing")]?.code == .unknownItem)
        #expect(saved.withLock { $0.sorted() } == ["a", "b"])
        #expect(deleted.withLock { $0 } == ["missing": false])

        let fetchedIDs = Mutex<[String]>([])
        let fetchAll = FetchSubscriptionsOperation.fetchAllSubscriptionsOperation()
        fetchAll.perSubscriptionResultBlock = { id, result in if (try? result.get()) != nil { fetchedIDs.withLock { $0.append(id) } } }
        let fetchError = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<CloudError?, any Error>) in
            fetchAll.fetchSubscriptionsResultBlock = { result in
                if case .failure(let error) = result { continuation.resume(returning: error as? CloudError) } else { continuation.resume(returning: nil) }
            }
            db.add(fetchAll)
        }
        #expect(fetchError == nil)
        #expect(fetchedIDs.withLock { $0.sorted() } == ["a", "b"])

        let results = try await db.subscriptions(for: ["a", "nope"])
        #expect((try? results["a"]?.get())?.subscriptionID == "a")
        #expect((results["nope"].map { r -> Bool in if case .failure = r { true } else { false } }) == true)
    }
}
