import Foundation
import LocalCloud
import Logging
import PostgresNIO
import Synchronization

extension PostgresStore: ChangeFeed {
    package func openChangeReader() throws -> any ChangeReader {
        listener.start()
        return PostgresChangeReader(store: self)
    }

    package func changeLogIsComplete(afterSequence sequence: Int64) async throws -> Bool {
        let floor = try await call { pool in
            try await pool.rows("SELECT value::bigint FROM \(self.schema).change_log_meta WHERE key = 'floor'").first?.decode(Int64.self) ?? Int64(0)
        }
        return floor <= sequence
    }

    /// This node's commits and every NOTIFY it heard, from memory (see ``PostgresChangeListener``).
    ///
    /// Never waits on the database: the server reads it on every cached request. A commit through
    /// this process moves it before the commit returns; a commit through another node moves it
    /// when its NOTIFY arrives (milliseconds); while the LISTEN connection is down it differs on
    /// every read, so nothing is served from a cache that could have missed a commit.
    package func changeStamp() throws -> ChangeStamp {
        listener.start()
        return listener.stamp()
    }
}

/// One watcher's reader of the PostgreSQL change log, woken across nodes by `LISTEN/NOTIFY`.
///
/// The store's ``PostgresChangeListener`` holds the one LISTEN connection and rings this reader's
/// ``Wakeup`` for every commit by any node, and once after every (re)connection. NOTIFY only
/// wakes: the rows come from `change_log WHERE seq > lastSeen`, so a NOTIFY lost while the
/// connection was down loses nothing.
///
/// Its reads suspend rather than block: one commit wakes every reader of the node at once, and
/// blocked watchers would hold the cooperative pool's few threads that the server needs.
final class PostgresChangeReader: ChangeReader {
    private let store: PostgresStore
    private let registration: (id: Int, wakeup: Wakeup)
    private let closed = Atomic<Bool>(false)

    init(store: PostgresStore) {
        self.store = store
        registration = store.listener.register()
    }

    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        store.listener.unregister(registration.id)
        registration.wakeup.fire()
    }

    deinit { close() }

    func waitForCommit(upTo timeout: Duration) async {
        await registration.wakeup.wait(upTo: timeout)
    }

    /// Every node's commit NOTIFYs; one lost while the LISTEN connection was down is made up by
    /// the ring after each reconnection.
    var hearsEveryCommit: Bool { true }

    func lastSequence() async throws -> Int64 {
        do {
            return try await store.changeLogEnd()
        } catch {
            throw PostgresPool.cloudError(error)
        }
    }

    func notifications(for user: String, containerIdentifier: String, after sequence: Int64) async throws -> ChangeBatch {
        do {
            let listener = ChangeListenerPosition(id: 0, user: user, containerIdentifier: containerIdentifier, after: sequence)
            return try await read([listener])[0] ?? ChangeBatch(through: sequence)
        } catch {
            throw PostgresPool.cloudError(error)
        }
    }

    var servesManyWatchers: Bool { true }

    /// Every listener's notifications from one read of the log (the rows after the earliest
    /// position), each user's subscriptions loaded once, each match (and its predicate query) made
    /// once per changed row and user, however many of that user's streams listen.
    func notifications(for listeners: [ChangeListenerPosition], force: Bool) async throws -> [Int: ChangeBatch] {
        do {
            return try await read(listeners)
        } catch {
            throw PostgresPool.cloudError(error)
        }
    }

    /// The listeners' batches: the rows, subscriptions and shares fetched here, the database's
    /// part of each match answered ahead (reads here are async), matched by ``ChangeMatcher``.
    private func read(_ listeners: [ChangeListenerPosition]) async throws -> [Int: ChangeBatch] {
        guard let earliest = listeners.map(\.after).min() else { return [:] }
        let changes = try await changes(after: earliest)
        guard !changes.isEmpty else { return ChangeMatcher.nothingNew(for: listeners) }
        var subscriptions: [String: [WatchedSubscription]] = [:]
        for user in Set(listeners.map(\.user)) {
            subscriptions[user] = try await store.loadSubscriptionRows(subscriber: user, scope: nil).compactMap(WatchedSubscription.init(row:))
        }
        // Shares are read once, and only when some listener subscribes in the shared database.
        let shares = ChangeMatcher.needsShares(subscriptions) ? try await store.storedSharesAsync() : []
        let matcher = ChangeMatcher(changes: changes, listeners: listeners, subscriptions: subscriptions, shares: shares)
        var answers: [String: Bool] = [:]
        for question in matcher.questions() {
            answers[question.key] = try await answer(question)
        }
        var batches = matcher.batches { answers[$0.key] ?? false }
        // The store keeps the decoded schema by its stamp: one small query unless it changed.
        if ChangeMatcher.needsSchema(batches) {
            let pool = store.pool
            ChangeMatcher.attach(try await pool.withConnection { try await self.store.currentSchema($0, logger: pool.logger) }, to: &batches)
        }
        return batches
    }

    /// The change-log rows after `sequence`, in order.
    private func changes(after sequence: Int64) async throws -> [LoggedChange] {
        let pool = store.pool
        let schema = store.schema
        var changes: [LoggedChange] = []
        var cursor = sequence
        while true {
            var statement = PostgresStatement("""
                SELECT seq, scope, owner, zone, record_name, record_type, kind, modified_by, at, parent FROM \(schema).change_log WHERE seq >
                """)
            statement.sql += " \(statement.bind(cursor)) ORDER BY seq LIMIT 1000"
            let rows = try await pool.rows(statement.sql, statement.binds)
            for row in rows {
                let (seq, scope, owner, zone, name, type, kind, modifiedBy, at, parent) =
                    try row.decode((Int64, Int, String, String, String, String, String, String, Double, String?).self)
                changes.append(LoggedChange(seq: seq, scope: Database.Scope(rawValue: scope) ?? .public, owner: owner, zone: zone,
                                            recordName: name, recordType: type, kind: kind, modifiedBy: modifiedBy, at: at, parent: parent))
                cursor = seq
            }
            if rows.count < 1000 { break }
        }
        return changes
    }

    /// What only the database decides for one match: the record's place under a hierarchy share
    /// (its parent chain, from the records table) and the predicate, in SQL, against the one changed row.
    private func answer(_ question: ChangeMatcher.Question) async throws -> Bool {
        let change = question.change
        if let grant = question.grant {
            let covered = try await WatchedSubscription.isCovered(change.recordName, by: grant) { name in
                // A deleted record's parent is in its log row (``LoggedChange/parent``).
                if name == change.recordName, change.kind == "deleted" { return change.parent.flatMap { $0.isEmpty ? nil : $0 } }
                var parent = PostgresStatement("SELECT r.fields -> ")
                parent.sql += "\(parent.bind(Record.parentKey)) ->> 'v' FROM \(store.schema).records r WHERE "
                parent.sql += "r.scope = \(parent.bind(change.scope.rawValue)) AND r.owner = \(parent.bind(change.owner))"
                parent.sql += " AND r.zone = \(parent.bind(change.zone)) AND r.record_name = \(parent.bind(name))"
                return try await store.pool.rows(parent.sql, parent.binds).first?.decode(String?.self) ?? nil
            }
            guard covered else { return false }
        }
        guard question.testsPredicate else { return true }
        // The predicate, in SQL, against the one changed row.
        var statement = PostgresStatement("SELECT 1 FROM \(store.schema).records r WHERE ")
        statement.sql += "r.scope = \(statement.bind(change.scope.rawValue)) AND r.owner = \(statement.bind(change.owner))"
        statement.sql += " AND r.zone = \(statement.bind(change.zone)) AND r.record_name = \(statement.bind(change.recordName))"
        let compiler = QueryCompiler(dialect: PostgresDialect(schema: store.schema, collationIsC: store.collationIsC))
        statement.sql += " AND ("
        statement.append(try compiler.predicate(question.subscription.predicate))
        statement.sql += ")"
        return try await !store.pool.rows(statement.sql, statement.binds).isEmpty
    }
}
