import Foundation
import GRDB
import Synchronization

extension SQLiteStore: ChangeFeed {
    func openChangeReader() throws -> any ChangeReader {
        try SQLiteChangeReader(store: self)
    }

    func changeLogIsComplete(afterSequence sequence: Int64) throws -> Bool {
        try read { db in try ChangeLogMeta.read(db).floor <= sequence }
    }
}

/// One watcher's reader of an SQLite store's change log.
///
/// A dedicated read-only connection checks `PRAGMA data_version`, which changes whenever another
/// connection (in any process) commits. The watcher checks at once when this process commits
/// through the store (a ``CommitSignal`` rings its ``Wakeup``), and every poll interval for commits
/// by other processes. Only then does it read `change_log WHERE seq > lastSeen` (a rowid range)
/// and match the rows against the user's stored subscriptions: kinds, scopes and types in memory,
/// query predicates in SQL against just the changed rows.
final class SQLiteChangeReader: ChangeReader {
    private let connection: DatabaseQueue
    private let signal: CommitSignal
    private let wakeup = Wakeup()
    /// The `data_version` at the last complete read; -1 forces the next read.
    private let lastVersion = Mutex(-1)

    init(store: SQLiteStore) throws {
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(SQLiteStore.busyTimeout)
        config.label = "LocalCloud.notifications"
        config.prepareDatabase { db in db.add(function: SQLiteStore.distanceFunction) }
        connection = try DatabaseQueue(path: store.fileURL.path, configuration: config)
        signal = CommitSignal.signal(for: store)
        signal.register(wakeup)
    }

    func close() {
        signal.unregister(wakeup)
    }

    func waitForCommit(upTo timeout: Duration) async {
        await wakeup.wait(upTo: timeout)
    }

    func lastSequence() async throws -> Int64 {
        // data_version first: a commit between the two reads is then either counted as before
        // the start or seen as a new version, never lost.
        try connection.inDatabase { db in
            let version = try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0
            let sequence = try SQLiteStore.lastSequence(db)
            lastVersion.withLock { $0 = version }
            return sequence
        }
    }

    /// The new rows after the last one seen: a rowid range, never a table scan.
    static let changesSQL = """
        SELECT seq, scope, owner, zone, record_name, record_type, kind, modified_by, at
        FROM change_log WHERE seq > ? ORDER BY seq LIMIT 1000
        """

    /// Whether one changed row matches a query subscription's predicate (appended in parentheses).
    static let matchPrefixSQL = "SELECT 1 FROM records r WHERE r.scope = ? AND r.owner = ? AND r.zone = ? AND r.record_name = ? AND ("

    func notifications(for user: String, containerIdentifier: String, after sequence: Int64) async throws -> ChangeBatch {
        let version = try connection.inDatabase { try Int.fetchOne($0.cachedStatement(sql: "PRAGMA data_version")) } ?? 0
        guard version != lastVersion.withLock({ $0 }) else { return ChangeBatch(through: sequence) }
        let batch = try connection.inDatabase { db in
            try read(db, user: user, containerIdentifier: containerIdentifier, after: sequence)
        }
        lastVersion.withLock { $0 = version }
        return batch
    }

    private func read(_ db: GRDB.Database, user: String, containerIdentifier: String, after sequence: Int64) throws -> ChangeBatch {
        var cursor = sequence
        var changes: [Change] = []
        let statement = try db.cachedStatement(sql: Self.changesSQL)
        while true {
            let rows = try Row.fetchAll(statement, arguments: [cursor])
            for row in rows {
                let kind: String = row[6]
                let reason: Notification.Reason? = switch kind {
                case "created": .recordCreated
                case "updated": .recordUpdated
                case "deleted": .recordDeleted
                default: nil
                }
                changes.append(Change(seq: row[0], scope: Database.Scope(rawValue: row[1]) ?? .public, owner: row[2], zone: row[3],
                                      recordName: row[4], recordType: row[5], reason: reason, modifiedBy: row[7], at: row[8]))
                cursor = row[0]
            }
            if rows.count < 1000 { break }
        }
        var batch = ChangeBatch(through: cursor)
        guard !changes.isEmpty else { return batch }
        let subscriptions = try SubscriptionRow.fetchAll(db, subscriber: user).compactMap { row -> Watched? in
            guard let predicate = try? row.predicateNode() else { return nil }
            let info = row.notificationInfo.flatMap { try? JSONDecoder().decode(Subscription.NotificationInfo.self, from: Data($0.utf8)) }
            return Watched(row: row, predicate: predicate,
                           options: QuerySubscription.Options(rawValue: UInt(truncatingIfNeeded: row.options)), info: info)
        }
        guard !subscriptions.isEmpty else { return batch }
        var spent: Set<String> = []
        for change in changes {
            guard let reason = change.reason else { continue }
            for watched in subscriptions where !spent.contains("\(watched.row.scope.rawValue)/\(watched.row.subscriptionID)") {
                guard try matches(change, reason: reason, watched, user: user, db: db) else { continue }
                // firesOnce: the subscription goes away once it has fired (the watcher deletes it).
                if watched.options.contains(.firesOnce) && watched.row.kind == Subscription.SubscriptionType.query.rawValue {
                    spent.insert("\(watched.row.scope.rawValue)/\(watched.row.subscriptionID)")
                    batch.spentSubscriptions.append((watched.row.scope, watched.row.subscriptionID))
                }
                batch.notifications.append(notification(for: change, reason: reason, watched, containerIdentifier: containerIdentifier))
            }
        }
        return batch
    }

    /// A change-log row.
    struct Change {
        var seq: Int64
        var scope: Database.Scope
        var owner: String
        var zone: String
        var recordName: String
        var recordType: String
        var reason: Notification.Reason?
        var modifiedBy: String
        var at: Double
    }

    /// A stored subscription, decoded once per poll.
    struct Watched {
        var row: SubscriptionRow
        var predicate: PredicateNode
        var options: QuerySubscription.Options
        var info: Subscription.NotificationInfo?
    }

    private func matches(_ change: Change, reason: Notification.Reason, _ watched: Watched, user: String, db: GRDB.Database) throws -> Bool {
        let row = watched.row
        guard change.scope == row.scope else { return false }
        let owner = row.scope == .public ? "" : user
        guard change.owner == owner else { return false }
        if let type = row.recordType, type != change.recordType { return false }
        switch Subscription.SubscriptionType(rawValue: row.kind) {
        case .query:
            if let zone = row.zone, zone != change.zone { return false }
            let wanted: QuerySubscription.Options = switch reason {
            case .recordCreated: .firesOnRecordCreation
            case .recordUpdated: .firesOnRecordUpdate
            case .recordDeleted: .firesOnRecordDeletion
            }
            guard watched.options.contains(wanted) else { return false }
            if reason == .recordDeleted || watched.predicate == .truePredicate { return true }
            // The predicate, in SQL, against the one changed row.
            let predicate = try SQLQueryPlan.compile(watched.predicate)
            let sql = SQLFragment(Self.matchPrefixSQL,
                                  [change.scope.rawValue, change.owner, change.zone, change.recordName]) + predicate + SQLFragment(")")
            return try Bool.fetchOne(db, sql: sql.sql, arguments: StatementArguments(sql.arguments.map { $0 as any DatabaseValueConvertible })) ?? false
        case .recordZone:
            return row.zone == change.zone
        case .database:
            return true
        case nil:
            return false
        }
    }

    private func notification(for change: Change, reason: Notification.Reason, _ watched: Watched, containerIdentifier: String) -> Notification {
        let type: Notification.NotificationType = switch Subscription.SubscriptionType(rawValue: watched.row.kind) {
        case .recordZone: .recordZone
        case .database: .database
        case .query, nil: .query
        }
        let zoneID = RecordZone.ID(zoneName: change.zone)
        return Notification(
            notificationType: type,
            notificationID: "\(change.seq)-\(watched.row.scope.rawValue)-\(watched.row.subscriptionID)",
            subscriptionID: watched.row.subscriptionID,
            containerIdentifier: containerIdentifier,
            databaseScope: change.scope,
            recordID: Record.ID(recordName: change.recordName, zoneID: zoneID),
            recordType: change.recordType,
            queryNotificationReason: reason,
            recordZoneID: zoneID,
            modifiedBy: change.modifiedBy.isEmpty ? nil : Record.ID(recordName: change.modifiedBy),
            changeDate: Date(timeIntervalSince1970: change.at),
            notificationInfo: watched.info,
            changeSequence: change.seq)
    }
}
