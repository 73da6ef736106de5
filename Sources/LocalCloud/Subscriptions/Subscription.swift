import Foundation
import Synchronization

/// A standing request to be told about changes, like `CKSubscription`.
///
/// Use one of the subclasses: ``QuerySubscription`` (records of a type matching a predicate),
/// ``RecordZoneSubscription`` (any change in a private zone) or ``DatabaseSubscription``
/// (any change in the private or shared database). Save it with `Database.save(_:)`; the
/// process then receives matching changes from `container.notifications`.
public class Subscription: @unchecked Sendable, CustomStringConvertible {
    /// Which kind of subscription, with `CKSubscription.SubscriptionType`'s raw values.
    public enum SubscriptionType: Int, Sendable, Hashable, Codable {
        case query = 1
        case recordZone = 2
        case database = 3
    }

    /// A subscription's ID, as `CKSubscription.ID`.
    public typealias ID = String

    /// Unique per user and database; saving a subscription with an existing ID replaces it.
    public let subscriptionID: ID
    public let subscriptionType: SubscriptionType
    private let info = Mutex<NotificationInfo?>(nil)

    init(subscriptionID: String, subscriptionType: SubscriptionType) {
        self.subscriptionID = subscriptionID
        self.subscriptionType = subscriptionType
    }

    /// What a push would show; LocalCloud stores it and hands it back with each ``Notification``.
    public var notificationInfo: NotificationInfo? {
        get { info.withLock { $0 } }
        set { info.withLock { $0 = newValue } }
    }

    public var description: String { "<\(Swift.type(of: self)) \(subscriptionID)>" }

    /// Checks CloudKit's rule for which database allows this kind of subscription.
    package func validate(for scope: Database.Scope) throws {}
}

extension Subscription {
    /// What the notification would carry on a device, like `CKSubscription.NotificationInfo`.
    public struct NotificationInfo: Sendable, Hashable, Codable {
        public var title: String?
        public var alertBody: String?
        public var category: String?
        public var shouldBadge: Bool
        public var shouldSendContentAvailable: Bool
        /// Fields a real push would include; LocalCloud keeps them for the app to fetch.
        public var desiredKeys: [String]?

        public init(title: String? = nil, alertBody: String? = nil, category: String? = nil,
                    shouldBadge: Bool = false, shouldSendContentAvailable: Bool = false, desiredKeys: [String]? = nil) {
            self.title = title
            self.alertBody = alertBody
            self.category = category
            self.shouldBadge = shouldBadge
            self.shouldSendContentAvailable = shouldSendContentAvailable
            self.desiredKeys = desiredKeys
        }
    }
}
