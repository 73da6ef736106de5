import Foundation
import Synchronization

/// One change-log reader per store in this process, shared by every watcher of that store: each
/// commit is read once and fanned out to the watchers it concerns, instead of one reader (and one
/// read per commit) per watcher, so a server with thousands of open push streams reads once.
///
/// ```swift
/// let fanout = try ChangeFanout.shared(for: store)
/// let id = fanout.join(user: "alice", containerIdentifier: "iCloud.A", after: 42, pollInterval: .milliseconds(100)) { batch in
///     deliver(batch.notifications); return true      // false: give me this batch again
/// }
/// fanout.leave(id)
/// ```
///
/// One task waits for a commit (the reader's wake-up, rung by every commit of any process or node)
/// or for a watcher to join, then asks the reader for every
/// watcher's batch in one call (``ChangeReader/notifications(for:force:)``) and hands each its own.
/// Each watcher has its own position, so one that resumes from an older change joins at once; the
/// read covers the earliest position. A handler that fails keeps its position and is asked again.
///
/// Invariant: a fanout is in ``shared(for:)``'s table exactly while it has watchers; its task
/// (and reader) end when the last one leaves.
final class ChangeFanout: Sendable {
    private struct Listener {
        var position: ChangeListenerPosition
        var pollInterval: Duration
        var handle: @Sendable (ChangeBatch) async -> Bool
    }

    private struct State {
        var listeners: [Int: Listener] = [:]
        var nextID = 0
        /// Read even when the store reports no commit: a watcher joined, or a handler failed.
        var force = true
        var closed = false
    }

    private let state = Mutex(State())
    private let wakeup = Wakeup()
    let reader: any ChangeReader
    private let key: ObjectIdentifier
    /// Held so that no other store can take its address (the key) while this fanout lives.
    private let store: any CloudStore

    /// How soon a read that failed is tried again, at most.
    static let retryInterval = Duration.seconds(1)

    /// How long the task sleeps without a ring when the reader hears every commit: only a safety
    /// net (a ring lost to a bug must not stall push for good), never the way commits are found.
    /// A reader that cannot hear other processes (no inotify) is polled at the watchers' interval.
    static let safetyInterval = Duration.seconds(60)

    private static let shared = Mutex<[ObjectIdentifier: ChangeFanout]>([:])

    private init(reader: any ChangeReader, key: ObjectIdentifier, store: any CloudStore) {
        self.reader = reader
        self.key = key
        self.store = store
    }

    /// The fanout of `store`, its reader opened on first use; `nil` for a store whose reader must
    /// serve one watcher only (then the watcher keeps a reader of its own).
    /// - Throws: when the reader cannot be opened.
    static func shared(for store: any CloudStore) async throws -> ChangeFanout? {
        // Only a class instance has an identity to share by.
        guard Mirror(reflecting: store).displayStyle == .class else { return nil }
        let key = ObjectIdentifier(store as AnyObject)
        if let existing = shared.withLock({ $0[key] }) { return existing }
        let reader = try await store.openChangeReader()
        guard reader.servesManyWatchers else {
            reader.close()
            return nil
        }
        let (fanout, isNew) = shared.withLock { shared -> (ChangeFanout, Bool) in
            if let existing = shared[key] { return (existing, false) }
            let fanout = ChangeFanout(reader: reader, key: key, store: store)
            shared[key] = fanout
            return (fanout, true)
        }
        if isNew {
            Task.detached { await fanout.run() }
        } else {
            reader.close()
        }
        return fanout
    }

    /// The fanout of `store` if it has one now (none is made): for tests.
    static func existing(for store: any CloudStore) -> ChangeFanout? {
        shared.withLock { $0[ObjectIdentifier(store as AnyObject)] }
    }

    /// Adds a watcher from change-log position `after`; `handle` gets its batches in order.
    /// - Returns: the ID to leave with; `nil` when this fanout just closed (ask ``shared(for:)`` again).
    func join(user: String, containerIdentifier: String, after: Int64, pollInterval: Duration,
              handle: @escaping @Sendable (ChangeBatch) async -> Bool) -> Int? {
        let id = Self.shared.withLock { _ in
            state.withLock { state -> Int? in
                guard !state.closed else { return nil }
                state.nextID += 1
                state.listeners[state.nextID] = Listener(
                    position: ChangeListenerPosition(id: state.nextID, user: user, containerIdentifier: containerIdentifier, after: after),
                    pollInterval: pollInterval, handle: handle)
                state.force = true
                return state.nextID
            }
        }
        wakeup.fire()
        return id
    }

    func leave(_ id: Int) {
        let closed = Self.shared.withLock { shared in
            state.withLock { state -> Bool in
                state.listeners[id] = nil
                guard state.listeners.isEmpty, !state.closed else { return false }
                state.closed = true
                if shared[key] === self { shared[key] = nil }
                return true
            }
        }
        if closed { wakeup.fire() }
    }

    /// The current end of the log.
    func lastSequence() async throws -> Int64 {
        try await reader.lastSequence()
    }

    /// Watchers now, for tests.
    var listenerCount: Int { state.withLock { $0.listeners.count } }

    private func run() async {
        defer { reader.close() }
        var failed = false
        while true {
            let (listeners, force, closed) = state.withLock { state in
                defer { state.force = false }
                return (Array(state.listeners.values), state.force, state.closed)
            }
            if closed { return }
            do {
                let batches = try await reader.notifications(for: listeners.map(\.position), force: force || failed)
                failed = false
                for listener in listeners {
                    guard let batch = batches[listener.position.id] else { continue }
                    if await listener.handle(batch) {
                        state.withLock { state in
                            state.listeners[listener.position.id]?.position.after = max(listener.position.after, batch.through)
                        }
                    } else {
                        failed = true
                    }
                }
            } catch {
                // A checkpoint, a busy file, a dropped connection: retried soon from the same positions.
                failed = true
            }
            let interval = reader.hearsEveryCommit ? Self.safetyInterval : listeners.map(\.pollInterval).min() ?? .seconds(1)
            await waitForWork(upTo: failed ? min(interval, Self.retryInterval) : interval)
        }
    }

    /// Returns at a commit, a watcher joining or leaving, or after `timeout`.
    private func waitForWork(upTo timeout: Duration) async {
        let reader = reader
        let wakeup = wakeup
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await reader.waitForCommit(upTo: timeout) }
            group.addTask { await wakeup.wait(upTo: timeout) }
            await group.next()
            group.cancelAll()
        }
    }
}
