import Foundation
import GRDB
import Synchronization

/// Watches one container for commits by any process and turns change-log rows into notifications.
///
/// A dedicated read-only connection checks `PRAGMA data_version`, which changes whenever another
/// connection (in any process) commits. It checks at once when this process commits through the
/// store (a ``CommitSignal`` wakes it), and every `pollInterval` for commits by other processes.
/// Only then does it read `change_log WHERE seq > lastSeen`
/// (a rowid range) and match the rows against the user's stored subscriptions: kinds, scopes and
/// types in memory, query predicates in SQL against just the changed rows.
final class NotificationWatcher: Sendable {
    let configuration: Container.Configuration
    let core: ContainerCore
    let pollInterval: Duration
    let startSequence: Int64?
    let deliver: @Sendable (Notification) -> Void
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(configuration: Container.Configuration, core: ContainerCore, pollInterval: Duration, startSequence: Int64?,
         deliver: @escaping @Sendable (Notification) -> Void) {
        self.configuration = configuration
        self.core = core
        self.pollInterval = pollInterval
        self.startSequence = startSequence
        self.deliver = deliver
    }

    func start() {
        task.withLock { task in
            task = Task.detached(priority: .utility) { [self] in await run() }
        }
    }

    func stop() {
        task.withLock { $0?.cancel() }
    }

    private func run() async {
        guard let user = configuration.user else { return }
        // Open (and migrate) the store first, so the tables exist; retry while the file cannot be opened.
        var connection: DatabaseQueue?
        while connection == nil && !Task.isCancelled {
            connection = try? openConnection()
            if connection == nil { try? await Task.sleep(for: .seconds(1)) }
        }
        guard let connection else { return }
        // Commits through this process's store wake the loop at once; the poll covers other processes.
        let wakeup = Wakeup()
        let signal = try? CommitSignal.signal(for: core.store())
        signal?.register(wakeup)
        defer { signal?.unregister(wakeup) }
        var state = WatchState(user: user)
        do {
            // data_version first: a commit between the two reads is then either counted as
            // before the start or seen as a new version, never lost.
            state.version = try connection.inDatabase { try Int.fetchOne($0, sql: "PRAGMA data_version") } ?? 0
            if let startSequence {
                state.lastSeen = startSequence
                try poll(connection, state: &state)
            } else {
                state.lastSeen = try connection.inDatabase { try SQLiteStore.lastSequence($0) }
            }
        } catch {
            return
        }
        while !Task.isCancelled {
            await wakeup.wait(upTo: pollInterval)
            if Task.isCancelled { break }
            do {
                let version = try connection.inDatabase { try Int.fetchOne($0.cachedStatement(sql: "PRAGMA data_version")) } ?? 0
                guard version != state.version else { continue }
                state.version = version
                try poll(connection, state: &state)
            } catch {
                // A transient error (a checkpoint, a busy file): the next poll retries from lastSeen.
                state.version = -1
            }
        }
    }

    /// The new rows after the last one seen: a rowid range, never a table scan.
    static let changesSQL = """
        SELECT seq, scope, owner, zone, record_name, record_type, kind, modified_by, at
        FROM change_log WHERE seq > ? ORDER BY seq LIMIT 1000
        """

    /// Whether one changed row matches a query subscription's predicate (appended in parentheses).
    static let matchPrefixSQL = "SELECT 1 FROM records r WHERE r.scope = ? AND r.owner = ? AND r.zone = ? AND r.record_name = ? AND ("

    private func openConnection() throws -> DatabaseQueue {
        _ = try core.store()
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(SQLiteStore.busyTimeout)
        config.label = "LocalCloud.notifications"
        config.prepareDatabase { db in db.add(function: SQLiteStore.distanceFunction) }
        return try DatabaseQueue(path: configuration.databaseURL.path, configuration: config)
    }

    struct WatchState {
        var user: String
        var version = 0
        var lastSeen: Int64 = 0
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

    private func poll(_ connection: DatabaseQueue, state: inout WatchState) throws {
        var fired: [(Notification, once: Watched?)] = []
        let lastSeen = state.lastSeen
        let newLastSeen: Int64 = try connection.inDatabase { db in
            var cursor = lastSeen
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
            guard !changes.isEmpty else { return cursor }
            let subscriptions = try SubscriptionRow.fetchAll(db, subscriber: state.user).compactMap { row -> Watched? in
                guard let predicate = try? row.predicateNode() else { return nil }
                let info = row.notificationInfo.flatMap { try? JSONDecoder().decode(Subscription.NotificationInfo.self, from: Data($0.utf8)) }
                return Watched(row: row, predicate: predicate,
                               options: QuerySubscription.Options(rawValue: UInt(truncatingIfNeeded: row.options)), info: info)
            }
            guard !subscriptions.isEmpty else { return cursor }
            var spent: Set<String> = []
            for change in changes {
                guard let reason = change.reason else { continue }
                for watched in subscriptions where !spent.contains("\(watched.row.scope.rawValue)/\(watched.row.subscriptionID)") {
                    guard try matches(change, reason: reason, watched, user: state.user, db: db) else { continue }
                    let once = watched.options.contains(.firesOnce) && watched.row.kind == Subscription.SubscriptionType.query.rawValue
                    if once { spent.insert("\(watched.row.scope.rawValue)/\(watched.row.subscriptionID)") }
                    fired.append((notification(for: change, reason: reason, watched), once ? watched : nil))
                }
            }
            return cursor
        }
        state.lastSeen = newLastSeen
        for (notification, _) in fired { deliver(notification) }
        // firesOnce: the subscription goes away once it has fired.
        for case (_, let once?) in fired {
            let context = StoreContext(scope: once.row.scope, user: state.user)
            _ = try? core.store().deleteSubscriptions([once.row.subscriptionID], context: context)
        }
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

    private func notification(for change: Change, reason: Notification.Reason, _ watched: Watched) -> Notification {
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
            containerIdentifier: configuration.containerIdentifier,
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

/// Wakes this process's notification watchers when a transaction commits through a store, so a
/// change is delivered in milliseconds rather than at the next poll.
///
/// ```swift
/// let signal = try CommitSignal.signal(for: store)
/// signal.register(wakeup)          // wakeup.wait(upTo:) now returns at the next commit
/// ```
///
/// One per store: a GRDB transaction observer on the store's pool that observes no row events
/// (so it costs nothing per statement) and fires every registered ``Wakeup`` after each commit.
/// Commits by other processes are not seen here; the watchers' `data_version` poll finds those.
final class CommitSignal: Sendable {
    private let wakeups = Mutex<[ObjectIdentifier: Wakeup]>([:])

    private final class Observer: TransactionObserver, Sendable {
        let signal: CommitSignal
        init(_ signal: CommitSignal) { self.signal = signal }
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: GRDB.Database) { signal.fire() }
        func databaseDidRollback(_ db: GRDB.Database) {}
    }

    private final class Installed: @unchecked Sendable {
        weak var pool: DatabasePool?
        let signal: CommitSignal
        init(pool: DatabasePool, signal: CommitSignal) {
            self.pool = pool
            self.signal = signal
        }
    }

    /// By store file; the pool is kept weakly, so a store closed and reopened gets a new observer.
    private static let installed = Mutex<[String: Installed]>([:])

    /// The signal of `store`, installing its observer on first use.
    static func signal(for store: SQLiteStore) -> CommitSignal {
        let key = store.fileURL.standardizedFileURL.path
        let (signal, isNew) = installed.withLock { installed -> (CommitSignal, Bool) in
            if let existing = installed[key], existing.pool === store.pool { return (existing.signal, false) }
            let signal = CommitSignal()
            installed[key] = Installed(pool: store.pool, signal: signal)
            return (signal, true)
        }
        // Outside the lock: adding an observer waits for the pool's writer.
        if isNew { store.pool.add(transactionObserver: Observer(signal), extent: .databaseLifetime) }
        return signal
    }

    func register(_ wakeup: Wakeup) {
        wakeups.withLock { $0[ObjectIdentifier(wakeup)] = wakeup }
    }

    func unregister(_ wakeup: Wakeup) {
        _ = wakeups.withLock { $0.removeValue(forKey: ObjectIdentifier(wakeup)) }
    }

    /// Called on the writer's thread right after a commit: only flips flags and resumes waiters.
    func fire() {
        for wakeup in wakeups.withLock({ Array($0.values) }) { wakeup.fire() }
    }
}

/// A one-slot doorbell: ``fire()`` wakes the current ``wait(upTo:)``, or the next one when nobody waits,
/// so a ring between two waits is never lost. Rings while nobody waits collapse into one.
final class Wakeup: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func fire() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns at the next ring (at once for one since the last wait), after `timeout`, or on cancellation.
    func wait(upTo timeout: Duration) async {
        let rang = state.withLock { state -> Bool in
            defer { state.pending = false }
            return state.pending
        }
        if rang { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.ring() }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    private func ring() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
