import Foundation
import GRDB
import Synchronization

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

    // A weak `var` is not Sendable to the compiler; it is set once in init and read only under `installed`'s lock.
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
