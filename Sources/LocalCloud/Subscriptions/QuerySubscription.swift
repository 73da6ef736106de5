import Foundation
import Synchronization

/// Notifies about records of one type that match a predicate, like `CKQuerySubscription`.
///
/// ```swift
/// let subscription = QuerySubscription(recordType: "Restaurant", predicate: Predicate(value: true),
///                                      subscriptionID: "new-restaurants",
///                                      options: [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion])
/// _ = try await container.publicCloudDatabase.save(subscription)
/// ```
///
/// Allowed in the public and private databases. A deletion fires for every deleted record of
/// the type: the deleted fields are gone, so the predicate cannot be checked (a notification is a hint).
public final class QuerySubscription: Subscription, @unchecked Sendable {
    /// When the subscription fires, like `CKQuerySubscription.Options`.
    public struct Options: OptionSet, Sendable, Hashable, Codable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        public static let firesOnRecordCreation = Options(rawValue: 1 << 0)
        public static let firesOnRecordUpdate = Options(rawValue: 1 << 1)
        public static let firesOnRecordDeletion = Options(rawValue: 1 << 2)
        /// The subscription is deleted after it first fires.
        public static let firesOnce = Options(rawValue: 1 << 3)
    }

    public let recordType: String
    public let predicate: Predicate
    public let querySubscriptionOptions: Options
    private let zone = Mutex<RecordZone.ID?>(nil)

    public init(recordType: String, predicate: Predicate, subscriptionID: String = UUID().uuidString, options: Options) {
        self.recordType = recordType
        self.predicate = predicate
        querySubscriptionOptions = options
        super.init(subscriptionID: subscriptionID, subscriptionType: .query)
    }

    /// The zone to watch; `nil` watches every zone of the database.
    public var zoneID: RecordZone.ID? {
        get { zone.withLock { $0 } }
        set { zone.withLock { $0 = newValue } }
    }

    override package func validate(for scope: Database.Scope) throws {
        guard scope != .shared else {
            throw CloudError(.invalidArguments, "Query subscriptions are not supported in the shared database")
        }
        guard !querySubscriptionOptions.intersection([.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion]).isEmpty else {
            throw CloudError(.invalidArguments, "Subscription \(subscriptionID) must fire on record creation, update or deletion")
        }
        try FieldName.validate(recordType, what: "Record type")
        let node = try predicate.validatedNode()
        _ = try SQLQueryPlan.compile(node)
    }
}
