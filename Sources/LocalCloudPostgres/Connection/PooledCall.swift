import LocalCloud
import NIOCore
import PostgresNIO
import Synchronization

/// One call on a pooled connection: its caller waits on a continuation that the first of four
/// outcomes resumes, and the rest are dropped.
///
/// 1. The body's result, from the task that leased the connection.
/// 2. The lease deadline passing before a connection came (``LeaseDeadlines``).
/// 3. The connection closing while the body runs: a statement sent as PostgreSQL shut down can
///    wait for ever in postgres-nio although its connection is gone.
/// 4. The caller's task being cancelled.
///
/// Any outcome but the first cancels the body's task. One task per call, and no timer of its own:
/// a deadline costs a place in the pool's ``LeaseDeadlines`` queue.
final class PooledCall<T: Sendable>: Sendable {
    private enum Phase { case waiting, leased, finished }

    private struct State {
        var phase = Phase.waiting
        var continuation: CheckedContinuation<T, any Error>?
        /// An outcome that came before ``start(_:work:)`` gave the continuation.
        var early: Result<T, any Error>?
        var work: Task<Void, Never>?
        var closeWatch: ConnectionCloseWatch.Token?
    }

    private let state = Mutex(State())
    private let watch: ConnectionCloseWatch

    init(watch: ConnectionCloseWatch) {
        self.watch = watch
    }

    /// Waits on `continuation`; `work` is the body's task, cancelled if another outcome comes first.
    func start(_ continuation: CheckedContinuation<T, any Error>, work: Task<Void, Never>) {
        let early = state.withLock { state -> Result<T, any Error>? in
            state.work = work
            guard state.phase == .finished else {
                state.continuation = continuation
                return nil
            }
            return state.early ?? .failure(CancellationError())
        }
        if let early {
            work.cancel()
            continuation.resume(with: early)
        }
    }

    /// The connection came: true unless the call already ended (the body must not run then).
    /// From here on the connection closing ends the call.
    func leased(_ connection: PostgresConnection) -> Bool {
        let proceed = state.withLock { state -> Bool in
            guard state.phase == .waiting else { return false }
            state.phase = .leased
            return true
        }
        guard proceed else { return false }
        let token = watch.add(connection) { [self] in
            finish(.failure(CloudError(.serviceUnavailable, "The database connection closed during the call; retry shortly",
                                       retryAfterSeconds: PostgresPool.retryAfterSeconds)))
        }
        let keep = state.withLock { state -> Bool in
            guard state.phase != .finished else { return false }
            state.closeWatch = token
            return true
        }
        if !keep { watch.remove(token) }
        return true
    }

    /// The deadline passed: ends the call unless a connection came first.
    func expire(after timeout: Duration) {
        // Most calls have their connection by their deadline: they build no error message.
        // `finish` checks the phase again under the lock, as it may change in between.
        let waiting = state.withLock { $0.phase == .waiting }
        guard waiting else { return }
        finish(.failure(CloudError(.serviceUnavailable, "No database connection within \(timeout); the database may be restarting",
                                   retryAfterSeconds: PostgresPool.retryAfterSeconds)), onlyIfWaiting: true)
    }

    func finish(_ result: Result<T, any Error>, onlyIfWaiting: Bool = false) {
        let ended = state.withLock { state -> (CheckedContinuation<T, any Error>?, Task<Void, Never>?, ConnectionCloseWatch.Token?)? in
            guard state.phase != .finished, !onlyIfWaiting || state.phase == .waiting else { return nil }
            state.phase = .finished
            defer {
                state.continuation = nil
                state.closeWatch = nil
            }
            if state.continuation == nil { state.early = result }
            return (state.continuation, state.work, state.closeWatch)
        }
        guard let (continuation, work, token) = ended else { return }
        if let token { watch.remove(token) }
        continuation?.resume(with: result)
        if case .failure = result { work?.cancel() }
    }

    func cancel() {
        finish(.failure(CancellationError()))
    }
}

/// The lease deadlines of a pool's calls, watched by one task instead of a timer per call.
///
/// Every call of a pool waits at most the same timeout, so deadlines arrive in order: a FIFO
/// queue, whose head is the next to pass. The task sleeps until the head's deadline and then
/// expires every call still waiting for a connection; calls that got one are dropped as they
/// come up. It is woken only when the queue was empty, so a busy pool costs an append per call.
final class LeaseDeadlines: Sendable {
    private struct Entry {
        var deadline: ContinuousClock.Instant
        var expire: @Sendable () -> Void
    }

    private struct State {
        var queue: [Entry] = []
        var head = 0
        var task: Task<Void, Never>?
        var stopped = false
    }

    private let state = Mutex(State())
    private let wakeup = Wakeup()
    let timeout: Duration

    init(timeout: Duration) {
        self.timeout = timeout
    }

    /// Calls `expire` once `timeout` has passed (it does nothing if the call got its connection).
    func add(_ expire: @escaping @Sendable () -> Void) {
        let deadline = ContinuousClock.now + timeout
        let wake = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            let wasEmpty = state.head == state.queue.count
            state.queue.append(Entry(deadline: deadline, expire: expire))
            if state.task == nil {
                state.task = Task { [weak self] in await self?.run() }
                return false
            }
            return wasEmpty
        }
        if wake { wakeup.fire() }
    }

    private func run() async {
        while true {
            let (due, next, stopped) = state.withLock { state -> ([Entry], ContinuousClock.Instant?, Bool) in
                let now = ContinuousClock.now
                var due: [Entry] = []
                while state.head < state.queue.count, state.queue[state.head].deadline <= now {
                    due.append(state.queue[state.head])
                    state.head += 1
                }
                // Compact once the consumed prefix dominates.
                if state.head > 1024, state.head * 2 > state.queue.count {
                    state.queue.removeFirst(state.head)
                    state.head = 0
                }
                return (due, state.head < state.queue.count ? state.queue[state.head].deadline : nil, state.stopped)
            }
            for entry in due { entry.expire() }
            if stopped { return }
            await wakeup.wait(upTo: next.map { $0 - ContinuousClock.now } ?? .seconds(3600))
        }
    }

    func stop() {
        let pending = state.withLock { state -> [Entry] in
            state.stopped = true
            defer { state.queue = []; state.head = 0 }
            return Array(state.queue[state.head...])
        }
        wakeup.fire()
        for entry in pending { entry.expire() }
    }
}
