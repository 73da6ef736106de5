import Foundation
import Synchronization

// Subscriptions through the async convenience API, each call one operation on the database's queue.
extension Database {
    /// Saves (or replaces) a subscription for the current user in this database.
    /// - Throws: `invalidArguments` where CloudKit does not allow the kind (zone subscriptions outside
    ///   the private database, database subscriptions in the public one, query subscriptions in the
    ///   shared one) or the predicate is invalid; `notAuthenticated` with no account.
    public func save(_ subscription: Subscription) async throws -> Subscription {
        let (saved, _) = try await modifySubscriptions(saving: [subscription], deleting: [])
        guard let result = saved[subscription.subscriptionID] else {
            throw CloudError(.internalError, "The save produced no result")
        }
        return try result.get()
    }

    /// - Throws: `unknownItem` when there is no such subscription.
    public func subscription(for subscriptionID: Subscription.ID) async throws -> Subscription {
        let results = try await subscriptions(for: [subscriptionID])
        guard let result = results[subscriptionID] else {
            throw CloudError(.unknownItem, "Subscription not found: \(subscriptionID)")
        }
        return try result.get()
    }

    public func subscriptions(for ids: [Subscription.ID]) async throws -> [Subscription.ID: Result<Subscription, any Error>] {
        try await fetchSubscriptions(FetchSubscriptionsOperation(subscriptionIDs: ids))
    }

    /// Every subscription of the current user in this database.
    public func allSubscriptions() async throws -> [Subscription] {
        let results = try await fetchSubscriptions(.fetchAllSubscriptionsOperation())
        return results.values.compactMap { try? $0.get() }.sorted { $0.subscriptionID < $1.subscriptionID }
    }

    /// - Throws: `unknownItem` when there is no such subscription.
    @discardableResult
    public func deleteSubscription(withID subscriptionID: Subscription.ID) async throws -> Subscription.ID {
        let (_, deleted) = try await modifySubscriptions(saving: [], deleting: [subscriptionID])
        guard let result = deleted[subscriptionID] else {
            throw CloudError(.internalError, "The delete produced no result")
        }
        try result.get()
        return subscriptionID
    }

    public func modifySubscriptions(saving subscriptionsToSave: [Subscription], deleting subscriptionIDsToDelete: [Subscription.ID]) async throws
        -> (saveResults: [Subscription.ID: Result<Subscription, any Error>], deleteResults: [Subscription.ID: Result<Void, any Error>]) {
        let saves = Mutex<[Subscription.ID: Result<Subscription, any Error>]>([:])
        let deletes = Mutex<[Subscription.ID: Result<Void, any Error>]>([:])
        let operation = ModifySubscriptionsOperation(subscriptionsToSave: subscriptionsToSave, subscriptionIDsToDelete: subscriptionIDsToDelete)
        operation.perSubscriptionSaveBlock = { id, result in saves.withLock { $0[id] = result } }
        operation.perSubscriptionDeleteBlock = { id, result in deletes.withLock { $0[id] = result } }
        try await run(operation) { operation, done in
            operation.modifySubscriptionsResultBlock = { result in done(Self.ignoringPartialFailure(result)) }
        }
        return (saves.withLock { $0 }, deletes.withLock { $0 })
    }

    private func fetchSubscriptions(_ operation: FetchSubscriptionsOperation) async throws -> [Subscription.ID: Result<Subscription, any Error>] {
        let results = Mutex<[Subscription.ID: Result<Subscription, any Error>]>([:])
        operation.perSubscriptionResultBlock = { id, result in results.withLock { $0[id] = result } }
        try await run(operation) { operation, done in
            operation.fetchSubscriptionsResultBlock = { result in done(Self.ignoringPartialFailure(result)) }
        }
        return results.withLock { $0 }
    }

    func subscriptionStore() async throws -> any SubscriptionStore { try await core.store() }
}
