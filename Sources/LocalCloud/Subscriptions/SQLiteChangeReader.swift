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
        var changes: [LoggedChange] = []
        let statement = try db.cachedStatement(sql: Self.changesSQL)
        while true {
            let rows = try Row.fetchAll(statement, arguments: [cursor])
            for row in rows {
                changes.append(LoggedChange(seq: row[0], scope: Database.Scope(rawValue: row[1]) ?? .public, owner: row[2], zone: row[3],
                                            recordName: row[4], recordType: row[5], kind: row[6], modifiedBy: row[7], at: row[8]))
                cursor = row[0]
            }
            if rows.count < 1000 { break }
        }
        var batch = ChangeBatch(through: cursor)
        guard !changes.isEmpty else { return batch }
        let subscriptions = try SubscriptionRow.fetchAll(db, subscriber: user).compactMap(WatchedSubscription.init(row:))
        guard !subscriptions.isEmpty else { return batch }
        // Shares are read only for a user who subscribes in the shared database.
        let shares = subscriptions.contains { $0.row.scope == .shared } ? try SQLiteStore.storedShares(db) : []
        var spent: Set<String> = []
        for change in changes {
            guard let reason = change.reason else { continue }
            for watched in subscriptions where !spent.contains(watched.key) {
                guard try matches(change, reason: reason, watched, user: user, shares: shares, db: db) else { continue }
                // firesOnce: the subscription goes away once it has fired (the watcher deletes it).
                if watched.firesOnce {
                    spent.insert(watched.key)
                    batch.spentSubscriptions.append((watched.row.scope, watched.row.subscriptionID))
                }
                batch.notifications.append(watched.notification(for: change, reason: reason, containerIdentifier: containerIdentifier))
            }
        }
        return batch
    }

    private func matches(_ change: LoggedChange, reason: Notification.Reason, _ watched: WatchedSubscription, user: String,
                         shares: [StoredShare], db: GRDB.Database) throws -> Bool {
        guard watched.matchesWithoutPredicate(change, reason: reason, user: user, shares: shares) else { return false }
        guard watched.row.kind == Subscription.SubscriptionType.query.rawValue, reason != .recordDeleted,
              watched.predicate != .truePredicate else { return true }
        // The predicate, in SQL, against the one changed row.
        let predicate = try SQLQueryPlan.compile(watched.predicate)
        let sql = SQLFragment(Self.matchPrefixSQL,
                              [change.scope.rawValue, change.owner, change.zone, change.recordName]) + predicate + SQLFragment(")")
        return try Bool.fetchOne(db, sql: sql.sql, arguments: StatementArguments(sql.arguments.map { $0 as any DatabaseValueConvertible })) ?? false
    }
}
