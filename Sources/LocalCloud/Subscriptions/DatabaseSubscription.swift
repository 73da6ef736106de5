import Foundation

/// Notifies about any record change in a database, like `CKDatabaseSubscription`.
///
/// ```swift
/// _ = try await container.privateCloudDatabase.save(DatabaseSubscription(subscriptionID: "private-changes"))
/// ```
///
/// Private and shared databases only, as in CloudKit; fetch what changed with
/// `databaseChanges(since:)` and `recordZoneChanges(inZoneWith:since:)`.
public final class DatabaseSubscription: Subscription, @unchecked Sendable {
    /// Only changes to records of this type fire, when set.
    public let recordType: String?

    public init(subscriptionID: String = UUID().uuidString, recordType: String? = nil) {
        self.recordType = recordType
        super.init(subscriptionID: subscriptionID, subscriptionType: .database)
    }

    override package func validate(for scope: Database.Scope) throws {
        guard scope != .public else {
            throw CloudError(.invalidArguments, "Database subscriptions are not supported in the public database")
        }
        if let recordType { try FieldName.validate(recordType, what: "Record type") }
    }
}
