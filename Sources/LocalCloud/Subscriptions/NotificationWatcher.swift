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

    private func run() async {
        guard let user = configuration.user else { return }
        // Open (and migrate) the store first, so the tables exist; retry while it cannot be opened.
        var reader: (any ChangeReader)?
        while reader == nil && !Task.isCancelled {
            // On the database's queue: opening may wait on a database server, never on the pool.
            reader = try? await Database(scope: .public, core: core).perform { db in try db.core.store().openChangeReader() }
            if reader == nil { try? await Task.sleep(for: .seconds(1)) }
        }
        guard let reader else { return }
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
            await reader.waitForCommit(upTo: failed ? min(pollInterval, Self.retryInterval) : pollInterval)
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
                try db.subscriptionStore().deleteSubscriptions([spent.subscriptionID], context: db.context)
            }
        }
        return batch.through
    }
}
