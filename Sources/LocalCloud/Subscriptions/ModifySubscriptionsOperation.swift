import Foundation
import Synchronization

/// Saves and deletes subscriptions, like `CKModifySubscriptionsOperation`.
///
/// ```swift
/// let op = ModifySubscriptionsOperation(subscriptionsToSave: [subscription], subscriptionIDsToDelete: nil)
/// op.modifySubscriptionsResultBlock = { result in … }
/// database.add(op)
/// ```
public final class ModifySubscriptionsOperation: DatabaseOperation, @unchecked Sendable {
    private struct Settings {
        var subscriptionsToSave: [Subscription]
        var subscriptionIDsToDelete: [Subscription.ID]
        var perSubscriptionSaveBlock: (@Sendable (Subscription.ID, Result<Subscription, any Error>) -> Void)?
        var perSubscriptionDeleteBlock: (@Sendable (Subscription.ID, Result<Void, any Error>) -> Void)?
        var modifySubscriptionsResultBlock: (@Sendable (Result<Void, any Error>) -> Void)?
    }

    private let settings: Mutex<Settings>

    public init(subscriptionsToSave: [Subscription]?, subscriptionIDsToDelete: [Subscription.ID]?) {
        settings = Mutex(Settings(subscriptionsToSave: subscriptionsToSave ?? [], subscriptionIDsToDelete: subscriptionIDsToDelete ?? []))
        super.init()
    }

    public var subscriptionsToSave: [Subscription] {
        get { settings.withLock { $0.subscriptionsToSave } }
        set { settings.withLock { $0.subscriptionsToSave = newValue } }
    }

    public var subscriptionIDsToDelete: [Subscription.ID] {
        get { settings.withLock { $0.subscriptionIDsToDelete } }
        set { settings.withLock { $0.subscriptionIDsToDelete = newValue } }
    }

    public var perSubscriptionSaveBlock: (@Sendable (Subscription.ID, Result<Subscription, any Error>) -> Void)? {
        get { settings.withLock { $0.perSubscriptionSaveBlock } }
        set { settings.withLock { $0.perSubscriptionSaveBlock = newValue } }
    }

    public var perSubscriptionDeleteBlock: (@Sendable (Subscription.ID, Result<Void, any Error>) -> Void)? {
        get { settings.withLock { $0.perSubscriptionDeleteBlock } }
        set { settings.withLock { $0.perSubscriptionDeleteBlock = newValue } }
    }

    /// Called once at the end: success, `partialFailure` when some items failed, or the error.
    public var modifySubscriptionsResultBlock: (@Sendable (Result<Void, any Error>) -> Void)? {
        get { settings.withLock { $0.modifySubscriptionsResultBlock } }
        set { settings.withLock { $0.modifySubscriptionsResultBlock = newValue } }
    }

    override func execute(in database: Database) async throws {
        let settings = settings.withLock { $0 }
        let store = try await database.subscriptionStore()
        let saved = await settings.subscriptionsToSave.isEmpty ? [:] : try store.saveSubscriptions(settings.subscriptionsToSave, context: database.context)
        let deleted = await settings.subscriptionIDsToDelete.isEmpty ? [:] : try store.deleteSubscriptions(settings.subscriptionIDsToDelete, context: database.context)
        var failures: [(Subscription.ID, CloudError)] = []
        for subscription in settings.subscriptionsToSave {
            let id = subscription.subscriptionID
            let result = saved[id] ?? .failure(CloudError(.internalError, "No result for subscription \(id)"))
            if case .failure(let error) = result { failures.append((id, error)) }
            settings.perSubscriptionSaveBlock?(id, result.mapError { $0 as any Error })
        }
        for id in settings.subscriptionIDsToDelete {
            let result = deleted[id] ?? .failure(CloudError(.internalError, "No result for subscription \(id)"))
            if case .failure(let error) = result { failures.append((id, error)) }
            settings.perSubscriptionDeleteBlock?(id, result.mapError { $0 as any Error })
        }
        if let error = CloudError.partialFailure(failures, what: "subscriptions") {
            settings.modifySubscriptionsResultBlock?(.failure(error))
        } else {
            settings.modifySubscriptionsResultBlock?(.success(()))
        }
    }

    override func finish(with error: CloudError) {
        modifySubscriptionsResultBlock?(.failure(error))
    }
}
