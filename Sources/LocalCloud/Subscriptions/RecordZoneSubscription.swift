import Foundation

/// Notifies about every record change in one custom zone, like `CKRecordZoneSubscription`.
///
/// ```swift
/// let subscription = RecordZoneSubscription(zoneID: RecordZone.ID(zoneName: "Favourites"), subscriptionID: "favs")
/// _ = try await container.privateCloudDatabase.save(subscription)
/// ```
///
/// Private database only, and not the default zone, as in CloudKit.
public final class RecordZoneSubscription: Subscription, @unchecked Sendable {
    public let zoneID: RecordZone.ID
    /// Only changes to records of this type fire, when set.
    public let recordType: String?

    public init(zoneID: RecordZone.ID, subscriptionID: String = UUID().uuidString, recordType: String? = nil) {
        self.zoneID = zoneID
        self.recordType = recordType
        super.init(subscriptionID: subscriptionID, subscriptionType: .recordZone)
    }

    override package func validate(for scope: Database.Scope) throws {
        guard scope == .private else {
            throw CloudError(.invalidArguments, "Record zone subscriptions are only supported in the private database, not the \(scope) database")
        }
        guard zoneID.zoneName != RecordZone.ID.defaultZoneName else {
            throw CloudError(.invalidArguments, "Record zone subscriptions are not supported on the default zone")
        }
        if let recordType { try FieldName.validate(recordType, what: "Record type") }
    }
}
