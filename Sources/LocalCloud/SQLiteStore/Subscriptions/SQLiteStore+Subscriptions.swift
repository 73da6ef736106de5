import Foundation
import GRDB

/// Saving, fetching and deleting subscriptions: one row per user, database and subscription ID.
package protocol SubscriptionStore: Sendable {
    func saveSubscriptions(_ subscriptions: [Subscription], context: StoreContext) async throws -> [String: Result<Subscription, CloudError>]
    func fetchSubscriptions(_ ids: [String]?, context: StoreContext) async throws -> [String: Result<Subscription, CloudError>]
    func deleteSubscriptions(_ ids: [String], context: StoreContext) async throws -> [String: Result<Void, CloudError>]
}

extension SQLiteStore: SubscriptionStore {
    static func subscriber(_ context: StoreContext) throws -> String {
        guard let user = context.user else {
            throw CloudError(.notAuthenticated, "No account: subscriptions need a signed-in user (set LOCALCLOUD_USER)")
        }
        return user
    }

    func saveSubscriptions(_ subscriptions: [Subscription], context: StoreContext) async throws -> [String: Result<Subscription, CloudError>] {
        let subscriber = try Self.subscriber(context)
        var rows: [String: Result<SubscriptionRow, CloudError>] = [:]
        for subscription in subscriptions {
            rows[subscription.subscriptionID] = Result {
                guard !subscription.subscriptionID.isEmpty, subscription.subscriptionID.utf8.count <= 255 else {
                    throw CloudError(.invalidArguments, "A subscription ID must be 1 to 255 bytes")
                }
                try subscription.validate(for: context.scope)
                return try SubscriptionRow(subscription)
            }.mapError { $0 as? CloudError ?? CloudError(.invalidArguments, "\($0)") }
        }
        let validated = rows
        return try await write { [self] db in
            let now = clock.now.timeIntervalSince1970
            var results: [String: Result<Subscription, CloudError>] = [:]
            for subscription in subscriptions {
                switch validated[subscription.subscriptionID] {
                case .success(let row):
                    try db.cachedStatement(sql: """
                        INSERT OR REPLACE INTO subscriptions
                            (subscriber, scope, subscription_id, kind, record_type, zone, predicate, options, notification_info, created_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """).execute(arguments: [subscriber, context.scope.rawValue, row.subscriptionID, row.kind, row.recordType,
                                                 row.zone, row.predicate, row.options, row.notificationInfo, now])
                    results[subscription.subscriptionID] = .success(subscription)
                case .failure(let error):
                    results[subscription.subscriptionID] = .failure(error)
                case nil:
                    break
                }
            }
            return (results, commit: true)
        }
    }

    func fetchSubscriptions(_ ids: [String]?, context: StoreContext) async throws -> [String: Result<Subscription, CloudError>] {
        let subscriber = try Self.subscriber(context)
        return try await read { db in
            let rows = try SubscriptionRow.fetchAll(db, subscriber: subscriber, scope: context.scope)
            var byID: [String: Result<Subscription, CloudError>] = [:]
            for row in rows { byID[row.subscriptionID] = Result { try row.subscription() }.mapError { $0 as? CloudError ?? CloudError(.internalError, "\($0)") } }
            guard let ids else { return byID }
            var results: [String: Result<Subscription, CloudError>] = [:]
            for id in ids {
                results[id] = byID[id] ?? .failure(CloudError(.unknownItem, "Subscription not found: \(id)"))
            }
            return results
        }
    }

    func deleteSubscriptions(_ ids: [String], context: StoreContext) async throws -> [String: Result<Void, CloudError>] {
        let subscriber = try Self.subscriber(context)
        return try await write { db in
            var results: [String: Result<Void, CloudError>] = [:]
            for id in ids {
                try db.execute(sql: "DELETE FROM subscriptions WHERE subscriber = ? AND scope = ? AND subscription_id = ?",
                               arguments: [subscriber, context.scope.rawValue, id])
                results[id] = db.changesCount > 0 ? .success(()) : .failure(CloudError(.unknownItem, "Subscription not found: \(id)"))
            }
            return (results, commit: true)
        }
    }
}

/// A subscription as stored: the predicate as its node's JSON, the options as bits.
package struct SubscriptionRow: Sendable, Equatable {
    package var subscriptionID: String
    package var scope: Database.Scope
    package var kind: Int
    package var recordType: String?
    package var zone: String?
    package var predicate: String?
    package var options: Int64
    package var notificationInfo: String?

    package init(subscriptionID: String, scope: Database.Scope, kind: Int, recordType: String?, zone: String?,
                 predicate: String?, options: Int64, notificationInfo: String?) {
        self.subscriptionID = subscriptionID
        self.scope = scope
        self.kind = kind
        self.recordType = recordType
        self.zone = zone
        self.predicate = predicate
        self.options = options
        self.notificationInfo = notificationInfo
    }

    package init(_ subscription: Subscription) throws {
        subscriptionID = subscription.subscriptionID
        scope = .public
        kind = subscription.subscriptionType.rawValue
        options = 0
        notificationInfo = try subscription.notificationInfo.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        switch subscription {
        case let query as QuerySubscription:
            recordType = query.recordType
            zone = query.zoneID?.zoneName
            predicate = String(decoding: try JSONEncoder().encode(try query.predicate.validatedNode()), as: UTF8.self)
            options = Int64(query.querySubscriptionOptions.rawValue)
        case let zoneSubscription as RecordZoneSubscription:
            recordType = zoneSubscription.recordType
            zone = zoneSubscription.zoneID.zoneName
        case let database as DatabaseSubscription:
            recordType = database.recordType
        default:
            throw CloudError(.invalidArguments, "Unknown subscription class \(type(of: subscription))")
        }
    }

    init(row: Row) {
        subscriptionID = row["subscription_id"]
        scope = Database.Scope(rawValue: row["scope"]) ?? .public
        kind = row["kind"]
        recordType = row["record_type"]
        zone = row["zone"]
        predicate = row["predicate"]
        options = row["options"]
        notificationInfo = row["notification_info"]
    }

    static func fetchAll(_ db: GRDB.Database, subscriber: String, scope: Database.Scope? = nil) throws -> [SubscriptionRow] {
        if let scope {
            return try Row.fetchAll(db, sql: "SELECT * FROM subscriptions WHERE subscriber = ? AND scope = ? ORDER BY subscription_id",
                                    arguments: [subscriber, scope.rawValue]).map(SubscriptionRow.init(row:))
        }
        return try Row.fetchAll(db, sql: "SELECT * FROM subscriptions WHERE subscriber = ? ORDER BY scope, subscription_id",
                                arguments: [subscriber]).map(SubscriptionRow.init(row:))
    }

    /// The predicate's tree, `TRUEPREDICATE` when none is stored.
    package func predicateNode() throws -> PredicateNode {
        guard let predicate else { return .truePredicate }
        return try JSONDecoder().decode(PredicateNode.self, from: Data(predicate.utf8))
    }

    package func subscription() throws -> Subscription {
        let info = try notificationInfo.map { try JSONDecoder().decode(Subscription.NotificationInfo.self, from: Data($0.utf8)) }
        let subscription: Subscription
        switch Subscription.SubscriptionType(rawValue: kind) {
        case .query:
            let node = try predicateNode()
            let query = QuerySubscription(recordType: recordType ?? "", predicate: Predicate(building: { node }),
                                          subscriptionID: subscriptionID,
                                          options: QuerySubscription.Options(rawValue: UInt(truncatingIfNeeded: options)))
            query.zoneID = zone.map { RecordZone.ID(zoneName: $0) }
            subscription = query
        case .recordZone:
            subscription = RecordZoneSubscription(zoneID: RecordZone.ID(zoneName: zone ?? ""), subscriptionID: subscriptionID, recordType: recordType)
        case .database:
            subscription = DatabaseSubscription(subscriptionID: subscriptionID, recordType: recordType)
        case nil:
            throw CloudError(.internalError, "Stored subscription \(subscriptionID) has unknown kind \(kind)")
        }
        subscription.notificationInfo = info
        return subscription
    }
}
