import Foundation
import LocalCloud
import PostgresNIO

extension PostgresStore: SubscriptionStore {
    static func subscriber(_ context: StoreContext) throws -> String {
        guard let user = context.user else {
            throw CloudError(.notAuthenticated, "No account: subscriptions need a signed-in user (set LOCALCLOUD_USER)")
        }
        return user
    }

    package func saveSubscriptions(_ subscriptions: [Subscription], context: StoreContext) async throws -> [String: Result<Subscription, CloudError>] {
        let subscriber = try Self.subscriber(context)
        var rows: [(String, Result<SubscriptionRow, CloudError>)] = []
        var originals: [String: Subscription] = [:]
        for subscription in subscriptions {
            originals[subscription.subscriptionID] = subscription
            rows.append((subscription.subscriptionID, Result {
                guard !subscription.subscriptionID.isEmpty, subscription.subscriptionID.utf8.count <= 255 else {
                    throw CloudError(.invalidArguments, "A subscription ID must be 1 to 255 bytes")
                }
                try subscription.validate(for: context.scope)
                return try SubscriptionRow(subscription)
            }.mapError { $0 as? CloudError ?? CloudError(.invalidArguments, "\($0)") }))
        }
        let prepared = rows
        let outcome: [String: CloudError?] = try await write { connection in
            var outcome: [String: CloudError?] = [:]
            let now = self.clock.now.timeIntervalSince1970
            for (id, result) in prepared {
                switch result {
                case .success(let row):
                    var statement = PostgresStatement("INSERT INTO \(self.schema).subscriptions ")
                    statement.sql += "(subscriber, scope, subscription_id, kind, record_type, zone, predicate, options, notification_info, created_at) VALUES ("
                    statement.sql += [statement.bind(subscriber), statement.bind(context.scope.rawValue), statement.bind(row.subscriptionID),
                                      statement.bind(row.kind), statement.bind(row.recordType as String?), statement.bind(row.zone as String?),
                                      statement.bind(row.predicate as String?), statement.bind(row.options), statement.bind(row.notificationInfo as String?),
                                      statement.bind(now)].joined(separator: ", ")
                    statement.sql += """
                        ) ON CONFLICT (subscriber, scope, subscription_id) DO UPDATE SET kind = excluded.kind,
                        record_type = excluded.record_type, zone = excluded.zone, predicate = excluded.predicate,
                        options = excluded.options, notification_info = excluded.notification_info, created_at = excluded.created_at
                        """
                    _ = try await connection.execute(statement, logger: self.pool.logger)
                    outcome[id] = .some(nil)
                case .failure(let error):
                    outcome[id] = error
                }
            }
            return outcome
        }
        var results: [String: Result<Subscription, CloudError>] = [:]
        for (id, error) in outcome {
            if let error { results[id] = .failure(error) } else if let original = originals[id] { results[id] = .success(original) }
        }
        return results
    }

    package func fetchSubscriptions(_ ids: [String]?, context: StoreContext) async throws -> [String: Result<Subscription, CloudError>] {
        let subscriber = try Self.subscriber(context)
        let rows = try await subscriptionRows(subscriber: subscriber, scope: context.scope)
        var byID: [String: Result<Subscription, CloudError>] = [:]
        for row in rows {
            byID[row.subscriptionID] = Result { try row.subscription() }.mapError { $0 as? CloudError ?? CloudError(.internalError, "\($0)") }
        }
        guard let ids else { return byID }
        var results: [String: Result<Subscription, CloudError>] = [:]
        for id in ids {
            results[id] = byID[id] ?? .failure(CloudError(.unknownItem, "Subscription not found: \(id)"))
        }
        return results
    }

    package func deleteSubscriptions(_ ids: [String], context: StoreContext) async throws -> [String: Result<Void, CloudError>] {
        let subscriber = try Self.subscriber(context)
        let deleted: [String: Bool] = try await write { connection in
            var deleted: [String: Bool] = [:]
            for id in ids {
                var statement = PostgresStatement("DELETE FROM \(self.schema).subscriptions WHERE ")
                statement.sql += "subscriber = \(statement.bind(subscriber)) AND scope = \(statement.bind(context.scope.rawValue))"
                statement.sql += " AND subscription_id = \(statement.bind(id))"
                deleted[id] = try await connection.execute(statement, logger: self.pool.logger) > 0
            }
            return deleted
        }
        return deleted.mapValues { $0 ? .success(()) : .failure(CloudError(.unknownItem, "Subscription not found")) }
    }

    /// A user's stored subscriptions, of one database or all.
    func subscriptionRows(subscriber: String, scope: Database.Scope?) async throws -> [SubscriptionRow] {
        try await call { _ in try await self.loadSubscriptionRows(subscriber: subscriber, scope: scope) }
    }

    /// ``subscriptionRows(subscriber:scope:)`` for async callers (change readers): suspends, never blocks.
    func loadSubscriptionRows(subscriber: String, scope: Database.Scope?) async throws -> [SubscriptionRow] {
        var statement = PostgresStatement("""
            SELECT subscription_id, scope, kind, record_type, zone, predicate, options, notification_info
            FROM \(schema).subscriptions WHERE subscriber =
            """)
        statement.sql += " " + statement.bind(subscriber)
        if let scope { statement.sql += " AND scope = \(statement.bind(scope.rawValue))" }
        statement.sql += " ORDER BY scope, subscription_id"
        return try await pool.rows(statement.sql, statement.binds).map { row in
            let (id, scope, kind, type, zone, predicate, options, info) =
                try row.decode((String, Int, Int, String?, String?, String?, Int64, String?).self)
            return SubscriptionRow(subscriptionID: id, scope: Database.Scope(rawValue: scope) ?? .public, kind: kind, recordType: type,
                                   zone: zone, predicate: predicate, options: options, notificationInfo: info)
        }
    }
}
