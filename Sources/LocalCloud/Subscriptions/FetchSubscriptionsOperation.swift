import Foundation
import Synchronization

/// Fetches the current user's subscriptions, like `CKFetchSubscriptionsOperation`.
///
/// ```swift
/// let op = FetchSubscriptionsOperation.fetchAllSubscriptionsOperation()
/// op.perSubscriptionResultBlock = { id, result in … }
/// database.add(op)
/// ```
public final class FetchSubscriptionsOperation: DatabaseOperation, @unchecked Sendable {
    private struct Settings {
        /// `nil` fetches all of them.
        var subscriptionIDs: [Subscription.ID]?
        var perSubscriptionResultBlock: (@Sendable (Subscription.ID, Result<Subscription, any Error>) -> Void)?
        var fetchSubscriptionsResultBlock: (@Sendable (Result<Void, any Error>) -> Void)?
    }

    private let settings: Mutex<Settings>

    public init(subscriptionIDs: [Subscription.ID]) {
        settings = Mutex(Settings(subscriptionIDs: subscriptionIDs))
        super.init()
    }

    private init(all: Void) {
        settings = Mutex(Settings(subscriptionIDs: nil))
        super.init()
    }

    /// An operation that fetches every subscription of the user in the database.
    public static func fetchAllSubscriptionsOperation() -> FetchSubscriptionsOperation {
        FetchSubscriptionsOperation(all: ())
    }

    public var subscriptionIDs: [Subscription.ID]? {
        get { settings.withLock { $0.subscriptionIDs } }
        set { settings.withLock { $0.subscriptionIDs = newValue } }
    }

    public var perSubscriptionResultBlock: (@Sendable (Subscription.ID, Result<Subscription, any Error>) -> Void)? {
        get { settings.withLock { $0.perSubscriptionResultBlock } }
        set { settings.withLock { $0.perSubscriptionResultBlock = newValue } }
    }

    /// Called once at the end: success, `partialFailure` when some IDs were not found, or the error.
    public var fetchSubscriptionsResultBlock: (@Sendable (Result<Void, any Error>) -> Void)? {
        get { settings.withLock { $0.fetchSubscriptionsResultBlock } }
        set { settings.withLock { $0.fetchSubscriptionsResultBlock = newValue } }
    }

    override func execute(in database: Database) async throws {
        let settings = settings.withLock { $0 }
        let results = try await database.subscriptionStore().fetchSubscriptions(settings.subscriptionIDs, context: database.context)
        var failures: [(Subscription.ID, CloudError)] = []
        for id in settings.subscriptionIDs ?? results.keys.sorted() {
            if isCancelled { throw Self.cancelledError }
            let result = results[id] ?? .failure(CloudError(.unknownItem, "Subscription not found: \(id)"))
            if case .failure(let error) = result { failures.append((id, error)) }
            settings.perSubscriptionResultBlock?(id, result.mapError { $0 as any Error })
        }
        if let error = CloudError.partialFailure(failures, what: "subscriptions") {
            settings.fetchSubscriptionsResultBlock?(.failure(error))
        } else {
            settings.fetchSubscriptionsResultBlock?(.success(()))
        }
    }

    override func finish(with error: CloudError) {
        fetchSubscriptionsResultBlock?(.failure(error))
    }
}
