import Foundation
import Synchronization

/// `container.notifications` for a remote container: the server's event stream
/// (`GET …/notifications`, server-sent events), read on its own thread and buffered with local
/// sequence numbers for the ``NotificationWatcher``.
///
/// A dropped stream reconnects with backoff and `Last-Event-ID`, so the server replays what was
/// missed while away (it keeps them in its change log); no polling happens while connected.
final class RemoteChangeReader: ChangeReader {
    private struct State {
        var events: [(sequence: Int64, notification: Notification)] = []
        var lastSequence: Int64 = 0
        var lastEventID: String?
        var closed = false
        var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
    }

    /// Notifications kept for a watcher that has not read them yet.
    static let bufferLimit = 10_000

    private let client: WebServicesClient
    private let state = Mutex(State())
    private let onEvent: @Sendable () -> Void
    /// The stream opened (the server answers), and it ended or could not open (it may be gone):
    /// the store confirms either with a probe, so the app learns without a request of its own.
    private let onOpen: @Sendable () -> Void
    private let onLost: @Sendable () -> Void
    /// Rung by ``close()``: ends a reconnect wait at once.
    private let reconnect = Wakeup()
    /// Who made a change (a record name, the server's change sequence from the event ID), when
    /// this client knows: the signed-in user's record ID for its own.
    private let modifier: @Sendable (String, Int64?) -> Record.ID?

    init(client: WebServicesClient, modifier: @escaping @Sendable (String, Int64?) -> Record.ID?,
         onEvent: @escaping @Sendable () -> Void, onOpen: @escaping @Sendable () -> Void = {},
         onLost: @escaping @Sendable () -> Void = {}) {
        self.client = client
        self.modifier = modifier
        self.onEvent = onEvent
        self.onOpen = onOpen
        self.onLost = onLost
    }

    /// Starts streaming in a task of its own (the stream itself reads on the HTTP client's
    /// thread). It does not wait for the stream to open. As with CloudKit, a change committed
    /// before the stream opens is not pushed (a fetch of changes finds it); once open,
    /// reconnects resume with `Last-Event-ID` and lose nothing.
    func start() {
        Task.detached(name: "LocalCloud notifications") { [self] in await run() }
    }

    private func run() async {
        var failures = 0
        while !state.withLock({ $0.closed }) {
            let lastEventID = state.withLock { $0.lastEventID }
            do {
                try await client.notifications(lastEventID: lastEventID, onOpen: { [self] in onOpen() },
                                         onEvent: { [self] event in receive(event) },
                                         shouldStop: { [self] in state.withLock { $0.closed } })
                failures = 0
            } catch {
                failures += 1
            }
            if !state.withLock({ $0.closed }) { onLost() }
            // Reconnect: at once after a clean end, then with capped exponential backoff; capped at
            // 2 s, so a server that comes back is seen within that (a refused connection costs nothing).
            let wait = failures == 0 ? .milliseconds(100) : Self.reconnectBackoff.delay(afterFailures: failures)
            // The monotonic clock: a wall clock set back or forward does not stretch or skip the wait.
            let deadline = ContinuousClock.now + wait
            while ContinuousClock.now < deadline, !state.withLock({ $0.closed }) {
                await reconnect.wait(upTo: deadline - ContinuousClock.now)
            }
        }
    }

    /// After failed connections: 0.5 s, 1 s, then 2 s at most.
    static let reconnectBackoff = Backoff(first: .milliseconds(500), maximum: .seconds(2))

    private func receive(_ event: ServerSentEvent) {
        // Parsed, and its author looked up (a read of the cache), before taking the lock.
        var parsed: Notification?
        if event.type == "message", let payload = try? JSONValue.parse(Array(event.data.utf8)),
           var notification = RemoteWire.notification(payload, sequence: 0, received: client.serverClock.now()) {
            // The event ID is the server's change sequence, with `.N` for a change's later notifications.
            let changeSequence = event.id.flatMap { Int64($0.split(separator: ".").first ?? "") }
            notification.modifiedBy = notification.recordID.flatMap { modifier($0.recordName, changeSequence) }
            parsed = notification
        }
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            if let id = event.id { state.lastEventID = id }
            guard var notification = parsed else { return [] }
            state.lastSequence += 1
            notification.changeSequence = state.lastSequence
            state.events.append((state.lastSequence, notification))
            if state.events.count > Self.bufferLimit { state.events.removeFirst(state.events.count - Self.bufferLimit) }
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        onEvent()
        for waiter in waiters { waiter.resume() }
    }

    func lastSequence() async throws -> Int64 {
        state.withLock { $0.lastSequence }
    }

    func waitForCommit(upTo timeout: Duration) async {
        let seen = state.withLock { $0.lastSequence }
        let id = UUID()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let resumeNow = state.withLock { state in
                            if state.lastSequence != seen || state.closed { return true }
                            state.waiters[id] = continuation
                            return false
                        }
                        if resumeNow { continuation.resume() }
                    }
                } onCancel: { [self] in
                    state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
                }
            }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    func notifications(for user: String, containerIdentifier: String, after sequence: Int64) async throws -> ChangeBatch {
        // The stream is already the signed-in user's: the server filtered it.
        state.withLock { state in
            var batch = ChangeBatch(through: state.lastSequence)
            batch.notifications = state.events.filter { $0.sequence > sequence }.map(\.notification)
            return batch
        }
    }

    /// The server's stream carries only what the user may read.
    var filtersByAccess: Bool { true }

    func close() {
        let waiters = state.withLock { state in
            state.closed = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
        reconnect.fire()
    }
}

extension RemoteStore {
    package func openChangeReader() async throws -> any ChangeReader {
        let user = configuration.user
        let reader = RemoteChangeReader(client: client, modifier: { [self] name, sequence in
            // A push does not say who changed the record; this process knows its own changes.
            guard let user, isOwnChange(name, sequence: sequence) else { return nil }
            return Record.ID(recordName: "_" + user)
        }, onEvent: { [self] in noteChange() }, onOpen: { [self] in streamOpened() }, onLost: { [self] in streamLost() })
        reader.start()
        return reader
    }

    /// The server keeps the log; a reconnect with `Last-Event-ID` replays from it.
    package func changeLogIsComplete(afterSequence sequence: Int64) throws -> Bool {
        true
    }
}
