import Foundation

/// The notifications for the current user's subscriptions, as they happen: the local stand-in for push.
///
/// ```swift
/// Task {
///     for await notification in container.notifications { … }
/// }
/// ```
///
/// Each iteration opens its own read-only connection and checks `PRAGMA data_version`, which
/// changes when any process commits: at once when a commit rings (this process's through the
/// container's store, another's through an inotify watch on the store's directory), and every
/// ``pollInterval`` only where no such watch can be had. Only then does it read
/// the change log after the last sequence it saw and match the new rows against the
/// subscriptions stored in the container, so an idle iteration costs almost nothing.
/// Iteration starts at the current end of the log: earlier changes are not replayed.
/// Ending the loop (or cancelling its task) stops the watcher.
public struct Notifications: AsyncSequence, Sendable {
    public typealias Element = Notification

    let configuration: Container.Configuration
    let core: ContainerCore
    /// Deliver changes after this change-log position; `nil` starts at the end of the log.
    let startSequence: Int64?
    /// How often the watcher checks for commits by other processes when the store cannot ring for
    /// them (no inotify watch could be had); the delivery latency of those is then about this plus
    /// the match. Commits that ring (this process's, and others' where the watch is up) are seen at once.
    public var pollInterval: Duration = .milliseconds(100)

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<Notification>.Iterator

        public mutating func next() async -> Notification? {
            await base.next()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        let (stream, continuation) = AsyncStream<Notification>.makeStream(bufferingPolicy: .bufferingNewest(10_000))
        let watcher = NotificationWatcher(configuration: configuration, core: core, pollInterval: pollInterval, startSequence: startSequence) { notification in
            continuation.yield(notification)
        }
        watcher.start()
        continuation.onTermination = { _ in watcher.stop() }
        return AsyncIterator(base: stream.makeAsyncIterator())
    }
}

extension Container {
    /// Every notification for the current user's subscriptions, from now on. See ``Notifications``.
    public var notifications: Notifications {
        Notifications(configuration: configuration, core: core, startSequence: nil)
    }

    /// The notifications for changes after `token`, then live ones: what a process missed while
    /// it was not running (`currentChangeToken()` saved at exit), or a start with no race.
    public func notifications(since token: ServerChangeToken) -> Notifications {
        Notifications(configuration: configuration, core: core, startSequence: token.sequence)
    }

    /// The notifications for changes after change-log position `sequence` (a ``Notification/changeSequence``
    /// seen earlier), then live ones: how the server resumes a push stream from a client's last event.
    package func notifications(afterSequence sequence: Int64) -> Notifications {
        Notifications(configuration: configuration, core: core, startSequence: max(0, sequence))
    }
}

extension Container {
    /// Whether the change log still holds every change after `sequence`: false once a compaction
    /// removed some, when notifications after it can no longer all be replayed.
    package func changeLogIsComplete(afterSequence sequence: Int64) async throws -> Bool {
        try await publicCloudDatabase.perform { db in try await db.core.store().changeLogIsComplete(afterSequence: sequence) }
    }
}

extension ServerChangeToken {
    /// The change-log position the token stands at: what ``Notification/changeSequence`` counts,
    /// so a push stream can say where it starts.
    package var changeSequence: Int64 { sequence }
}
