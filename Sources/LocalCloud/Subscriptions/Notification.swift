import Foundation

/// One change a subscription fired for, like `CKNotification` and its query, zone and database kinds.
///
/// ```swift
/// for await notification in container.notifications {
///     guard notification.modifiedBy != myUserRecordID else { continue }   // my own save
///     showBanner(notification.queryNotificationReason)
/// }
/// ```
///
/// As in CloudKit a notification is a hint: fetch the changes (a query, or
/// `recordZoneChanges(inZoneWith:since:)`) for the truth. Foundation also declares a
/// `Notification`; a file importing both writes `LocalCloud.Notification` (or ``CloudNotification``).
public struct Notification: Sendable, Hashable, CustomStringConvertible {
    /// Which kind of subscription fired, with `CKNotification.NotificationType`'s raw values.
    public enum NotificationType: Int, Sendable, Hashable, Codable {
        case query = 1
        case recordZone = 2
        case database = 4
    }

    /// Why a query subscription fired, with `CKQueryNotification.Reason`'s raw values.
    public enum Reason: Int, Sendable, Hashable, Codable, CustomStringConvertible {
        case recordCreated = 1
        case recordUpdated = 2
        case recordDeleted = 3

        public var description: String {
            switch self {
            case .recordCreated: "recordCreated"
            case .recordUpdated: "recordUpdated"
            case .recordDeleted: "recordDeleted"
            }
        }
    }

    public var notificationType: NotificationType
    /// Unique per change and subscription; the same change seen twice has the same ID.
    public var notificationID: String
    public var subscriptionID: String
    public var containerIdentifier: String
    public var databaseScope: Database.Scope
    /// The changed record (query and zone notifications; database ones carry it too, as a hint).
    public var recordID: Record.ID?
    public var recordType: String?
    /// Created, updated or deleted. Set on every kind (CloudKit sets it on query notifications only).
    public var queryNotificationReason: Reason
    public var recordZoneID: RecordZone.ID?
    /// The user record ID (`_<user>`) of whoever made the change: compare it with
    /// `container.userRecordID()` to skip your own saves.
    public var modifiedBy: Record.ID?
    /// When the change was committed.
    public var changeDate: Date
    /// What the subscription asked a push to show.
    public var notificationInfo: Subscription.NotificationInfo?
    /// The change-log position of the change; later changes have larger values.
    public var changeSequence: Int64

    package init(notificationType: NotificationType, notificationID: String, subscriptionID: String, containerIdentifier: String,
                 databaseScope: Database.Scope, recordID: Record.ID?, recordType: String?, queryNotificationReason: Reason,
                 recordZoneID: RecordZone.ID?, modifiedBy: Record.ID?, changeDate: Date,
                 notificationInfo: Subscription.NotificationInfo?, changeSequence: Int64) {
        self.notificationType = notificationType
        self.notificationID = notificationID
        self.subscriptionID = subscriptionID
        self.containerIdentifier = containerIdentifier
        self.databaseScope = databaseScope
        self.recordID = recordID
        self.recordType = recordType
        self.queryNotificationReason = queryNotificationReason
        self.recordZoneID = recordZoneID
        self.modifiedBy = modifiedBy
        self.changeDate = changeDate
        self.notificationInfo = notificationInfo
        self.changeSequence = changeSequence
    }

    public var description: String {
        "<Notification \(notificationType) \(subscriptionID) \(queryNotificationReason) \(recordID?.recordName ?? "-") by \(modifiedBy?.recordName ?? "?")>"
    }
}

/// `LocalCloud.Notification` under a name that does not clash with Foundation's.
public typealias CloudNotification = Notification
