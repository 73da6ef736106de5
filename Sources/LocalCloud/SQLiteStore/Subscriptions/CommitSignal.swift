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
/// Commits by other processes ring it too, through a ``FileChangeWatcher`` on the store's directory
/// (each commit writes the `-wal` file), held while any wakeup is registered. Where that watcher
/// cannot be had, ``hearsOtherProcesses`` is false and the watchers poll `data_version` instead.
final class CommitSignal: Sendable {
    private struct Registered {
        var wakeups: [ObjectIdentifier: Wakeup] = [:]
        var watcher: FileChangeWatcher?
    }

    private let registered = Mutex(Registered())
    private let file: URL

    private init(file: URL) {
        self.file = file
    }

    private final class Observer: TransactionObserver, Sendable {
        let signal: CommitSignal
        init(_ signal: CommitSignal) { self.signal = signal }
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: GRDB.Database) { signal.fire() }
        func databaseDidRollback(_ db: GRDB.Database) {}
    }

    /// The pool is held weakly (`weak let`: set once, so the compiler checks the class is Sendable).
    private final class Installed: Sendable {
        weak let pool: DatabasePool?
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
            let signal = CommitSignal(file: store.fileURL.standardizedFileURL)
            installed[key] = Installed(pool: store.pool, signal: signal)
            return (signal, true)
        }
        // Outside the lock: adding an observer waits for the pool's writer.
        if isNew { store.pool.add(transactionObserver: Observer(signal), extent: .databaseLifetime) }
        return signal
    }

    /// Registers a wakeup; the first one starts the directory watcher.
    func register(_ wakeup: Wakeup) {
        let file = file
        registered.withLock { registered in
            registered.wakeups[ObjectIdentifier(wakeup)] = wakeup
            if registered.watcher == nil {
                // The file and its `-wal` (and `-journal`): no other file in the directory rings.
                registered.watcher = FileChangeWatcher(directory: file.deletingLastPathComponent().path,
                                                       namePrefix: file.lastPathComponent) { [weak self] in self?.fire() }
            }
        }
    }

    /// Unregisters a wakeup; the last one stops the directory watcher, so an idle store holds no thread.
    func unregister(_ wakeup: Wakeup) {
        let idle = registered.withLock { registered -> FileChangeWatcher? in
            registered.wakeups.removeValue(forKey: ObjectIdentifier(wakeup))
            guard registered.wakeups.isEmpty else { return nil }
            defer { registered.watcher = nil }
            return registered.watcher
        }
        idle?.stop()
    }

    /// Whether commits by other processes ring it (the directory watcher is up), so a watcher
    /// need not poll for them.
    var hearsOtherProcesses: Bool {
        registered.withLock { $0.watcher?.isRunning ?? false }
    }

    /// Called on the writer's thread right after a commit (or by the directory watcher's thread):
    /// only flips flags and resumes waiters.
    func fire() {
        for wakeup in registered.withLock({ Array($0.wakeups.values) }) { wakeup.fire() }
    }
}
