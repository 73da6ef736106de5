import Foundation
import GRDB
import Synchronization

extension SQLiteStore: ChangeFeed {
    func openChangeReader() throws -> any ChangeReader {
        try SQLiteChangeReader(store: self)
    }

    func changeLogIsComplete(afterSequence sequence: Int64) async throws -> Bool {
        try await read { db in try ChangeLogMeta.read(db).floor <= sequence }
    }
}

/// One watcher's reader of an SQLite store's change log.
///
/// A dedicated read-only connection checks `PRAGMA data_version`, which changes whenever another
/// connection (in any process) commits. The watcher checks at once when a commit rings its
/// ``Wakeup``: this process's through the store (a ``CommitSignal``), another process's through
/// the signal's directory watcher; only where that watcher cannot be had, every poll interval. Only then does it read `change_log WHERE seq > lastSeen` (a rowid range)
/// and match the rows against the user's stored subscriptions: kinds, scopes and types in memory,
/// query predicates in SQL against just the changed rows.
final class SQLiteChangeReader: ChangeReader {
    private let connection: DatabaseQueue
    private let signal: CommitSignal
    private let wakeup = Wakeup()
    /// The `data_version` at the last complete read; -1 forces the next read.
    private let lastVersion = Mutex(-1)
    /// The schema last decoded, with its stamp: a role or grant change writes a new stamp.
    private let schemaCache = Mutex<(stamp: String, schema: Schema)?>(nil)

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

    /// This process's commits ring at once; another process's through the store directory's watcher.
    var hearsEveryCommit: Bool { signal.hearsOtherProcesses }

    func lastSequence() async throws -> Int64 {
        // data_version first: a commit between the two reads is then either counted as before
        // the start or seen as a new version, never lost.
        try await connection.read { [self] db in
            let version = try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0
            let sequence = try SQLiteStore.lastSequence(db)
            lastVersion.withLock { $0 = version }
            return sequence
        }
    }

    /// The new rows after the last one seen: a rowid range, never a table scan.
    static let changesSQL = """
        SELECT seq, scope, owner, zone, record_name, record_type, kind, modified_by, at, parent
        FROM change_log WHERE seq > ? ORDER BY seq LIMIT 1000
        """

    /// Whether one changed row matches a query subscription's predicate (appended in parentheses).
    static let matchPrefixSQL = "SELECT 1 FROM records r WHERE r.scope = ? AND r.owner = ? AND r.zone = ? AND r.record_name = ? AND ("

    func notifications(for user: String, containerIdentifier: String, after sequence: Int64) async throws -> ChangeBatch {
        let version = try await versionAfterRing()
        guard version != lastVersion.withLock({ $0 }) else { return ChangeBatch(through: sequence) }
        let listener = ChangeListenerPosition(id: 0, user: user, containerIdentifier: containerIdentifier, after: sequence)
        let batch = try await connection.read { [self] db in
            try read(db, listeners: [listener], after: sequence)[0] ?? ChangeBatch(through: sequence)
        }
        lastVersion.withLock { $0 = version }
        return batch
    }

    var servesManyWatchers: Bool { true }

    private func dataVersion() async throws -> Int {
        try await connection.read { try Int.fetchOne($0.cachedStatement(sql: "PRAGMA data_version")) } ?? 0
    }

    /// `data_version` after a ring; when it is still the last read's, looks again a few times over
    /// 150 ms, or at once at the next ring. Another process's commit rings through inotify when
    /// its frames are written to the `-wal`, which can be before the commit is visible (the
    /// wal-index is updated in shared memory, with no event of its own): read at once, the commit
    /// would wait for the next ring, or the fan-out's 60 s safety net. One commit can also ring
    /// twice (this process's signal, then inotify): the second finds nothing new, and the next
    /// commit's ring ends its wait, so it is not heard a poll interval late. A ring heard here
    /// is rung again for the next look: its commit may not be visible yet when this one ends.
    private func versionAfterRing() async throws -> Int {
        var version = try await dataVersion()
        var delay = 10
        var heardRing = false
        defer { if heardRing { wakeup.fire() } }
        while version == lastVersion.withLock({ $0 }), delay <= 80 {
            if await wakeup.wait(upTo: .milliseconds(delay)) { heardRing = true }
            try Task.checkCancellation()
            version = try await dataVersion()
            delay *= 2
        }
        return version
    }

    /// Every listener's notifications from one read of the log: the rows after the earliest
    /// position, the listeners' users' subscriptions in one query (decoded again only when a row
    /// changed), then each listener's rows matched in memory, and in SQL only for query predicates
    /// (each predicate tested once per changed row, however many listeners share the user).
    func notifications(for listeners: [ChangeListenerPosition], force: Bool) async throws -> [Int: ChangeBatch] {
        guard let earliest = listeners.map(\.after).min() else { return [:] }
        let version = force ? try await dataVersion() : try await versionAfterRing()
        guard force || version != lastVersion.withLock({ $0 }) else { return [:] }
        let batches = try await connection.read { [self] db in try read(db, listeners: listeners, after: earliest) }
        lastVersion.withLock { $0 = version }
        return batches
    }

    /// Decoded subscriptions by user and key, with the row they were decoded from.
    private let decoded = Mutex<[String: [String: WatchedSubscription]]>([:])

    /// The listeners' batches from one read: the rows, subscriptions and shares fetched here,
    /// matched by ``ChangeMatcher``.
    private func read(_ db: GRDB.Database, listeners: [ChangeListenerPosition], after earliest: Int64) throws -> [Int: ChangeBatch] {
        let changes = try Self.changes(db, after: earliest)
        guard !changes.isEmpty else { return ChangeMatcher.nothingNew(for: listeners) }
        let subscriptions = try subscriptions(db, users: Set(listeners.map(\.user)))
        // Shares are read once, and only when some listener subscribes in the shared database.
        let shares = ChangeMatcher.needsShares(subscriptions) ? try SQLiteStore.storedShares(db) : []
        let matcher = ChangeMatcher(changes: changes, listeners: listeners, subscriptions: subscriptions, shares: shares)
        var batches = try matcher.batches { question in try answer(question, db: db) }
        // In the same read: the access check sees roles and grants as of these changes.
        if ChangeMatcher.needsSchema(batches) { ChangeMatcher.attach(try currentSchema(db), to: &batches) }
        return batches
    }

    static func changes(_ db: GRDB.Database, after sequence: Int64) throws -> [LoggedChange] {
        var cursor = sequence
        var changes: [LoggedChange] = []
        let statement = try db.cachedStatement(sql: Self.changesSQL)
        while true {
            let rows = try Row.fetchAll(statement, arguments: [cursor])
            for row in rows {
                changes.append(LoggedChange(seq: row[0], scope: Database.Scope(rawValue: row[1]) ?? .public, owner: row[2], zone: row[3],
                                            recordName: row[4], recordType: row[5], kind: row[6], modifiedBy: row[7], at: row[8],
                                            parent: row[9]))
                cursor = row[0]
            }
            if rows.count < 1000 { break }
        }
        return changes
    }

    /// The users' subscriptions, reusing the decoded form of every row that did not change.
    private func subscriptions(_ db: GRDB.Database, users: Set<String>) throws -> [String: [WatchedSubscription]] {
        var rows: [String: [SubscriptionRow]] = [:]
        if users.count <= 8 {
            for user in users { rows[user] = try SubscriptionRow.fetchAll(db, subscriber: user) }
        } else {
            // Many listeners: one scan instead of a query each.
            for user in users { rows[user] = [] }
            let statement = try db.cachedStatement(sql: "SELECT * FROM subscriptions ORDER BY subscriber, scope, subscription_id")
            let cursor = try Row.fetchCursor(statement)
            while let row = try cursor.next() {
                let subscriber: String = row["subscriber"]
                guard users.contains(subscriber) else { continue }
                rows[subscriber, default: []].append(SubscriptionRow(row: row))
            }
        }
        return decoded.withLock { decoded in
            var result: [String: [WatchedSubscription]] = [:]
            var next: [String: [String: WatchedSubscription]] = [:]
            for (user, userRows) in rows {
                let known = decoded[user] ?? [:]
                var mine: [String: WatchedSubscription] = [:]
                var list: [WatchedSubscription] = []
                for row in userRows {
                    let key = "\(row.scope.rawValue)/\(row.subscriptionID)"
                    let watched: WatchedSubscription? = if let old = known[key], old.row == row { old } else { WatchedSubscription(row: row) }
                    guard let watched else { continue }
                    mine[key] = watched
                    list.append(watched)
                }
                next[user] = mine
                result[user] = list
            }
            decoded = next
            return result
        }
    }

    /// The stored schema, decoded again only when its stamp changed (comparing it costs microseconds).
    private func currentSchema(_ db: GRDB.Database) throws -> Schema {
        if let cached = schemaCache.withLock({ $0 }), try SchemaStorage.stamp(db, is: cached.stamp) { return cached.schema }
        let loaded = try SchemaStorage.load(db)
        schemaCache.withLock { $0 = (loaded.stamp, loaded.schema) }
        return loaded.schema
    }

    /// What only the database decides for one match: the record's place under a hierarchy share
    /// (its parent chain, from the records table) and the predicate, in SQL, against the one changed row.
    private func answer(_ question: ChangeMatcher.Question, db: GRDB.Database) throws -> Bool {
        let change = question.change
        if let grant = question.grant {
            let covered = try WatchedSubscription.isCovered(change.recordName, by: grant) { name in
                // A deleted record's parent is in its log row (``LoggedChange/parent``).
                if name == change.recordName, change.kind == "deleted" { return change.parent.flatMap { $0.isEmpty ? nil : $0 } }
                return try String.fetchOne(db, sql: """
                    SELECT json_extract(fields, '$.\(Record.parentKey).v') FROM records
                    WHERE scope = ? AND owner = ? AND zone = ? AND record_name = ?
                    """, arguments: [change.scope.rawValue, change.owner, change.zone, name])
            }
            guard covered else { return false }
        }
        guard question.testsPredicate else { return true }
        let predicate = try SQLQueryPlan.compile(question.subscription.predicate)
        let sql = SQLFragment(Self.matchPrefixSQL,
                              [.integer(Int64(change.scope.rawValue)), .text(change.owner), .text(change.zone), .text(change.recordName)])
            + predicate + SQLFragment(")")
        return try Bool.fetchOne(db, sql: sql.sql, arguments: sql.statementArguments) ?? false
    }
}
