import Foundation
import Synchronization

/// Watches one container for commits by any process (or server node) and delivers the
/// notifications the user's subscriptions fire.
///
/// The store's ``ChangeReader`` does the store-specific part: waking on commits and reading the
/// change log after the last position seen. The watcher only keeps that position, delivers, and
/// deletes `firesOnce` subscriptions that fired.
final class NotificationWatcher: Sendable {
    let configuration: Container.Configuration
    let core: ContainerCore
    let pollInterval: Duration
    let startSequence: Int64?
    let deliver: @Sendable (Notification) -> Void
    private let task = Mutex<Task<Void, Never>?>(nil)
    /// How soon a poll that failed is tried again, at most.
    static let retryInterval = Duration.seconds(1)

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
            task = Task.detached { [self] in await run() }
        }
    }

    func stop() {
        task.withLock { $0?.cancel() }
    }

    /// Where the watcher reads from: the store's shared ``ChangeFanout``, or a reader of its own
    /// for a store whose reader serves one watcher only.
    private enum Source: Sendable {
        case shared(ChangeFanout)
        case own(any ChangeReader)
    }

    private func run() async {
        guard let user = configuration.user else { return }
        while !Task.isCancelled {
            // Open (and migrate) the store first, so the tables exist; retry while it cannot be opened.
            let source = try? await openSource()
            switch source {
            case nil:
                try? await Task.sleep(for: Self.retryInterval)
            case .own(let reader)?:
                await runAlone(reader, user: user)
                return
            case .shared(let fanout)?:
                // `false`: the fanout closed as its last watcher left; take the next one.
                if await runShared(fanout, user: user) { return }
            }
        }
    }

    /// The store's fanout, or a reader of its own. In a task of its own: a stream's task lives as
    /// long as the stream, and keeps none of what opening a store and a reader allocated.
    private func openSource() async throws -> Source {
        let core = core
        return try await Task {
            let store = try await core.store()
            if let fanout = try await ChangeFanout.shared(for: store) { return Source.shared(fanout) }
            return Source.own(try await store.openChangeReader())
        }.value
    }

    /// Joins the fanout and stays until cancelled. Returns `false` when the fanout had just closed.
    private func runShared(_ fanout: ChangeFanout, user: String) async -> Bool {
        let start: Int64
        if let startSequence {
            start = startSequence
        } else {
            guard let end = try? await fanout.lastSequence() else { return true }
            start = end
        }
        let filters = fanout.reader.filtersByAccess
        guard let id = fanout.join(user: user, containerIdentifier: configuration.containerIdentifier, after: start,
                                   pollInterval: pollInterval, handle: { [self] batch in
                                       await handle(batch, user: user, filtersByAccess: filters)
                                   }) else { return false }
        defer { fanout.leave(id) }
        // Nothing to do here but wait: the fanout delivers. Ends when the task is cancelled.
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
        return true
    }

    /// Delivers one batch; `false` when the access check could not be made (the batch comes again).
    private func handle(_ batch: ChangeBatch, user: String, filtersByAccess: Bool) async -> Bool {
        let readable: [Notification]
        do {
            // Checked before any is delivered: a check that fails retries the whole batch, so nothing repeats.
            readable = filtersByAccess ? batch.notifications
                : try await readableNotifications(batch.notifications, user: user, schema: batch.schema)
        } catch {
            return false
        }
        for notification in readable { deliver(notification) }
        // On the database's queue, like any store call: a network store may block while it deletes.
        for spent in batch.spentSubscriptions {
            _ = try? await Database(scope: spent.scope, core: core).perform { db in
                try await db.subscriptionStore().deleteSubscriptions([spent.subscriptionID], context: db.context)
            }
        }
        return true
    }

    /// A reader of its own, for a store whose reader serves one watcher only (a remote store's).
    private func runAlone(_ reader: any ChangeReader, user: String) async {
        defer { reader.close() }
        var lastSeen: Int64
        do {
            if let startSequence {
                lastSeen = try await poll(reader, user: user, after: startSequence)
            } else {
                lastSeen = try await reader.lastSequence()
            }
        } catch {
            return
        }
        var failed = false
        while !Task.isCancelled {
            let interval = reader.hearsEveryCommit ? ChangeFanout.safetyInterval : pollInterval
            await reader.waitForCommit(upTo: failed ? min(interval, Self.retryInterval) : interval)
            if Task.isCancelled { break }
            // A transient error (a checkpoint, a busy file, a dropped connection): the next poll
            // retries from lastSeen, so nothing is skipped, and soon, not a whole poll interval later.
            if let seen = try? await poll(reader, user: user, after: lastSeen) {
                lastSeen = seen
                failed = false
            } else {
                failed = true
            }
        }
    }

    private func poll(_ reader: any ChangeReader, user: String, after sequence: Int64) async throws -> Int64 {
        let batch = try await reader.notifications(for: user, containerIdentifier: configuration.containerIdentifier, after: sequence)
        // Checked before any is delivered: a check that fails retries the whole batch, so nothing repeats.
        let readable = reader.filtersByAccess ? batch.notifications : try await readableNotifications(batch.notifications, user: user, schema: batch.schema)
        for notification in readable { deliver(notification) }
        // On the database's queue, like any store call: a network store may block while it deletes.
        for spent in batch.spentSubscriptions {
            _ = try? await Database(scope: spent.scope, core: core).perform { db in
                try await db.subscriptionStore().deleteSubscriptions([spent.subscriptionID], context: db.context)
            }
        }
        return batch.through
    }
}
