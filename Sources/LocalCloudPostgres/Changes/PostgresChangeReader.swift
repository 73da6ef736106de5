import Foundation
import LocalCloud
import Logging
import PostgresNIO
import Synchronization

extension PostgresStore: ChangeFeed {
    package func openChangeReader() throws -> any ChangeReader {
        PostgresChangeReader(store: self)
    }

    package func changeLogIsComplete(afterSequence sequence: Int64) throws -> Bool {
        let floor = try call { pool in
            try await pool.rows("SELECT value::bigint FROM \(self.schema).change_log_meta WHERE key = 'floor'").first?.decode(Int64.self) ?? Int64(0)
        }
        return floor <= sequence
    }

    /// The change-log position and the schema's stamp: a commit on any node changes one of them.
    package func changeStamp() throws -> ChangeStamp {
        let (sequence, stamp) = try call { pool in
            try await pool.rows("""
                SELECT (SELECT coalesce(max(seq), 0) FROM \(self.schema).change_log), (SELECT stamp FROM \(self.schema).schema WHERE id = 1)
                """).first?.decode((Int64, String).self) ?? (Int64(0), "")
        }
        var hasher = Hasher()
        hasher.combine(stamp)
        return ChangeStamp(commits: UInt64(max(0, sequence)), files: [Int64(hasher.finalize())])
    }
}

/// One watcher's reader of the PostgreSQL change log, woken across nodes by `LISTEN/NOTIFY`.
///
/// A dedicated connection (not from the pool: LISTEN belongs to a session) listens on the store's
/// channel; every commit's NOTIFY, from any node, rings the ``Wakeup``. NOTIFY only wakes: the rows
/// come from `change_log WHERE seq > lastSeen`, so a NOTIFY lost while the connection was down
/// loses nothing. After every (re)connection the reader rings once and catches up by sequence.
final class PostgresChangeReader: ChangeReader {
    private let store: PostgresStore
    private let wakeup = Wakeup()
    private let listener = Mutex<Task<Void, Never>?>(nil)

    init(store: PostgresStore) {
        self.store = store
        let wakeup = wakeup
        let url = store.pool.url
        let channel = store.channel
        listener.withLock { $0 = Task.detached { await Self.listen(url: url, channel: channel, wakeup: wakeup) } }
    }

    func close() {
        listener.withLock { task in
            task?.cancel()
            task = nil
        }
    }

    deinit { close() }

    /// Listens until cancelled, reconnecting after a dropped connection (a restart of PostgreSQL).
    private static func listen(url: PostgresURL, channel: String, wakeup: Wakeup) async {
        var logger = Logger(label: "LocalCloud.postgres.listen")
        logger.logLevel = .critical
        var configuration = PostgresConnection.Configuration(host: url.host, port: url.port, username: url.user,
                                                             password: url.password, database: url.database, tls: .disable)
        configuration.options.connectTimeout = .seconds(5)
        var attempt = 0
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                attempt = 0
                do {
                    try await connection.listen(on: channel) { notifications in
                        // Listening now: whatever committed before is read by sequence.
                        wakeup.fire()
                        for try await _ in notifications { wakeup.fire() }
                    }
                } catch {}
                try? await connection.close()
            } catch {}
            if Task.isCancelled { break }
            // Catch up whatever a lost NOTIFY would have said, then retry with a growing delay.
            wakeup.fire()
            attempt += 1
            try? await Task.sleep(for: .milliseconds(min(2000, 50 << min(attempt, 6))))
        }
    }

    func waitForCommit(upTo timeout: Duration) async {
        await wakeup.wait(upTo: timeout)
    }

    func lastSequence() throws -> Int64 {
        try store.currentChangeToken().sequence
    }

    func notifications(for user: String, containerIdentifier: String, after sequence: Int64) throws -> ChangeBatch {
        let store = store
        let schema = store.schema
        let changes: [LoggedChange] = try store.call { pool in
            var changes: [LoggedChange] = []
            var cursor = sequence
            while true {
                var statement = PostgresStatement("""
                    SELECT seq, scope, owner, zone, record_name, record_type, kind, modified_by, at FROM \(schema).change_log WHERE seq >
                    """)
                statement.sql += " \(statement.bind(cursor)) ORDER BY seq LIMIT 1000"
                let rows = try await pool.rows(statement.sql, statement.binds)
                for row in rows {
                    let (seq, scope, owner, zone, name, type, kind, modifiedBy, at) =
                        try row.decode((Int64, Int, String, String, String, String, String, String, Double).self)
                    changes.append(LoggedChange(seq: seq, scope: Database.Scope(rawValue: scope) ?? .public, owner: owner, zone: zone,
                                                recordName: name, recordType: type, kind: kind, modifiedBy: modifiedBy, at: at))
                    cursor = seq
                }
                if rows.count < 1000 { return changes }
            }
        }
        var batch = ChangeBatch(through: changes.last?.seq ?? sequence)
        guard !changes.isEmpty else { return batch }
        let subscriptions = try store.subscriptionRows(subscriber: user, scope: nil).compactMap(WatchedSubscription.init(row:))
        guard !subscriptions.isEmpty else { return batch }
        var spent: Set<String> = []
        for change in changes {
            guard let reason = change.reason else { continue }
            for watched in subscriptions where !spent.contains(watched.key) {
                guard try matches(change, reason: reason, watched, user: user) else { continue }
                if watched.firesOnce {
                    spent.insert(watched.key)
                    batch.spentSubscriptions.append((watched.row.scope, watched.row.subscriptionID))
                }
                batch.notifications.append(watched.notification(for: change, reason: reason, containerIdentifier: containerIdentifier))
            }
        }
        return batch
    }

    private func matches(_ change: LoggedChange, reason: LocalCloud.Notification.Reason, _ watched: WatchedSubscription, user: String) throws -> Bool {
        guard watched.matchesWithoutPredicate(change, reason: reason, user: user) else { return false }
        guard watched.row.kind == Subscription.SubscriptionType.query.rawValue, reason != .recordDeleted,
              watched.predicate != .truePredicate else { return true }
        // The predicate, in SQL, against the one changed row.
        var statement = PostgresStatement("SELECT 1 FROM \(store.schema).records r WHERE ")
        statement.sql += "r.scope = \(statement.bind(change.scope.rawValue)) AND r.owner = \(statement.bind(change.owner))"
        statement.sql += " AND r.zone = \(statement.bind(change.zone)) AND r.record_name = \(statement.bind(change.recordName))"
        var compiler = PredicateCompiler(schema: store.schema, collationIsC: store.collationIsC)
        statement.sql += " AND (\(try compiler.compile(watched.predicate, &statement)))"
        let query = statement
        return try store.call { pool in try await !pool.rows(query.sql, query.binds).isEmpty }
    }
}
