import Foundation

/// A stored subscription decoded once per read of the change log: everything a reader needs to
/// match changes against it, except a query predicate, which each store tests in its own SQL.
package struct WatchedSubscription: Sendable {
    package var row: SubscriptionRow
    package var predicate: PredicateNode
    package var options: QuerySubscription.Options
    package var info: Subscription.NotificationInfo?

    /// `nil` for a row whose predicate cannot be read.
    package init?(row: SubscriptionRow) {
        guard let predicate = try? row.predicateNode() else { return nil }
        self.row = row
        self.predicate = predicate
        options = QuerySubscription.Options(rawValue: UInt(truncatingIfNeeded: row.options))
        info = row.notificationInfo.flatMap { try? JSONDecoder().decode(Subscription.NotificationInfo.self, from: Data($0.utf8)) }
    }

    /// The database and subscription ID, unique per user.
    package var key: String { "\(row.scope.rawValue)/\(row.subscriptionID)" }

    /// A query subscription with `firesOnce`: it goes away once it has fired.
    package var firesOnce: Bool {
        options.contains(.firesOnce) && row.kind == Subscription.SubscriptionType.query.rawValue
    }

    /// Whether the change is in the subscription's database, owner, type, zone and firing reasons;
    /// a query subscription's predicate is left to the caller.
    ///
    /// A shared-database subscription matches changes in the other users' zones that `user` is in a
    /// share of now (``ShareRules/grant(user:owner:zoneName:shares:)``, the rule every read uses), so a
    /// removed participant stops hearing at once; `shares` is the store's list of shares. The check is
    /// per zone: a deletion leaves no parent chain to walk.
    package func matchesWithoutPredicate(_ change: LoggedChange, reason: Notification.Reason, user: String,
                                         shares: [StoredShare]) -> Bool {
        if row.scope == .shared {
            guard change.scope == .private, change.owner != user,
                  !ShareRules.grant(user: user, owner: change.owner, zoneName: change.zone, shares: shares).isEmpty
            else { return false }
        } else {
            guard change.scope == row.scope else { return false }
            let owner = row.scope == .public ? "" : user
            guard change.owner == owner else { return false }
        }
        if let type = row.recordType, type != change.recordType { return false }
        switch Subscription.SubscriptionType(rawValue: row.kind) {
        case .query:
            if let zone = row.zone, zone != change.zone { return false }
            let wanted: QuerySubscription.Options = switch reason {
            case .recordCreated: .firesOnRecordCreation
            case .recordUpdated: .firesOnRecordUpdate
            case .recordDeleted: .firesOnRecordDeletion
            }
            return options.contains(wanted)
        case .recordZone:
            return row.zone == change.zone
        case .database:
            return true
        case nil:
            return false
        }
    }

    /// The notification the change fires for this subscription.
    package func notification(for change: LoggedChange, reason: Notification.Reason, containerIdentifier: String) -> Notification {
        let type: Notification.NotificationType = switch Subscription.SubscriptionType(rawValue: row.kind) {
        case .recordZone: .recordZone
        case .database: .database
        case .query, nil: .query
        }
        // A shared-database subscription hears of the owner's zone under the owner's name.
        let shared = row.scope == .shared
        let zoneID = shared ? RecordZone.ID(zoneName: change.zone, ownerName: "_" + change.owner) : RecordZone.ID(zoneName: change.zone)
        return Notification(
            notificationType: type,
            notificationID: "\(change.seq)-\(row.scope.rawValue)-\(row.subscriptionID)",
            subscriptionID: row.subscriptionID,
            containerIdentifier: containerIdentifier,
            databaseScope: shared ? .shared : change.scope,
            recordID: Record.ID(recordName: change.recordName, zoneID: zoneID),
            recordType: change.recordType,
            queryNotificationReason: reason,
            recordZoneID: zoneID,
            modifiedBy: change.modifiedBy.isEmpty ? nil : Record.ID(recordName: change.modifiedBy),
            changeDate: Date(timeIntervalSince1970: change.at),
            notificationInfo: info,
            changeSequence: change.seq)
    }
}
