import Foundation
import LocalCloud
import Logging
import PostgresNIO
import Synchronization

/// The one `LISTEN` connection of a ``PostgresStore`` in this process, shared by all its readers.
///
/// ```swift
/// let (id, wakeup) = store.listener.register()   // a reader: rung on every commit, by any node
/// await wakeup.wait(upTo: .seconds(30))
/// store.listener.unregister(id)
/// ```
///
/// LISTEN belongs to a session, so it needs a connection of its own, not the pool's; one per store
/// rather than one per reader, so a node with a thousand SSE streams holds one extra backend.
/// Every NOTIFY on the store's channel (a commit by any node) rings each registered reader's
/// ``Wakeup`` and advances ``generation``, which the store's change stamp reads from memory.
///
/// NOTIFY only wakes: readers read `change_log WHERE seq > lastSeen`. A NOTIFY sent while the
/// connection is down is lost, so after every (re)connection the listener rings every reader once
/// and each catches up by sequence number. Until the connection is up (``isListening``), the
/// change stamp differs on every read, so no cache can outlive a commit this node did not hear.
///
/// A connection can die without closing (the server's host lost, a stopped backend, a NAT that
/// forgot it): every `probeInterval` the listener asks `SELECT 1` on it, and a connection that
/// does not answer within `probeTimeout` is closed and replaced.
package final class PostgresChangeListener: Sendable {
    private struct State {
        var readers: [Int: Wakeup] = [:]
        var nextReader = 0
        var listening = false
        /// Advanced by this node's commits, by every NOTIFY and by every (re)connection.
        var generation: UInt64 = 0
        /// Advanced by writes other than records' (the schema's; a NOTIFY with an empty payload)
        /// and by every (re)connection, not by record commits: the stamp the schema is kept under.
        var schemaGeneration: UInt64 = 0
        /// LISTEN connections made so far: 1 after the first, 2 after a reconnection.
        var connections = 0
        /// The LISTEN connection's server process, while it is up.
        var backendProcessID: Int32?
        var task: Task<Void, Never>?
    }

    private let state = Mutex(State())
    private let url: PostgresURL
    private let channel: String
    /// How long a (re)connection attempt may take before it is retried.
    private let connectTimeout: Duration
    private let probeInterval: Duration
    private let probeTimeout: Duration
    private let applicationName: String

    /// - Parameter applicationName: how the connection shows in `pg_stat_activity`.
    package init(url: PostgresURL, channel: String, connectTimeout: Duration, applicationName: String = "localcloud listen",
                 probeInterval: Duration = .seconds(30), probeTimeout: Duration = .seconds(10)) {
        self.url = url
        self.channel = channel
        self.connectTimeout = connectTimeout
        self.probeInterval = probeInterval
        self.probeTimeout = probeTimeout
        self.applicationName = applicationName
    }

    deinit { stop() }

    // MARK: Lifecycle

    /// Starts listening, once; later calls do nothing.
    package func start() {
        state.withLock { state in
            guard state.task == nil else { return }
            // On the bridge's threads, like every database call (see ``PostgresPool``).
            state.task = Task { [weak self] in await self?.run() }
        }
    }

    /// Stops listening and wakes every reader.
    package func stop() {
        let task = state.withLock { state -> Task<Void, Never>? in
            defer { state.task = nil }
            state.listening = false
            return state.task
        }
        task?.cancel()
        ringAll()
    }

    // MARK: Readers

    /// Registers a reader; its wakeup rings on every commit and after every reconnection.
    package func register() -> (id: Int, wakeup: Wakeup) {
        let wakeup = Wakeup()
        let id = state.withLock { state in
            defer { state.nextReader += 1 }
            state.readers[state.nextReader] = wakeup
            return state.nextReader
        }
        return (id, wakeup)
    }

    package func unregister(_ id: Int) {
        _ = state.withLock { $0.readers.removeValue(forKey: id) }
    }

    /// Readers registered now.
    package var readerCount: Int { state.withLock { $0.readers.count } }

    // MARK: Change stamp

    /// Whether the LISTEN connection is up, so every commit by any node reaches ``generation``.
    package var isListening: Bool { state.withLock { $0.listening } }

    /// LISTEN connections made so far (a reconnection adds one).
    package var connectionCount: Int { state.withLock { $0.connections } }

    /// The LISTEN connection's server process ID (`pg_stat_activity.pid`) while it is up.
    package var backendProcessID: Int32? { state.withLock { $0.listening ? $0.backendProcessID : nil } }

    /// A commit through this process: advances the generation at once, before its NOTIFY returns.
    func noteLocalCommit() {
        state.withLock { $0.generation &+= 1 }
    }

    /// A commit through this process that wrote the schema (or anything but records).
    func noteLocalSchemaCommit() {
        state.withLock { state in
            state.generation &+= 1
            state.schemaGeneration &+= 1
        }
    }

    /// The store's change stamp, from memory: the generation while listening; while not, a value
    /// that differs on every read (a commit by another node could not be heard).
    package func stamp() -> ChangeStamp {
        state.withLock { state in
            if !state.listening { state.generation &+= 1 }
            return ChangeStamp(commits: state.generation)
        }
    }

    /// The schema's stamp, from memory: moved by schema writes of any node, not by record commits.
    /// While not listening it differs on every read, like ``stamp()``.
    package func schemaStamp() -> ChangeStamp {
        state.withLock { state in
            if !state.listening { state.schemaGeneration &+= 1 }
            return ChangeStamp(commits: state.schemaGeneration)
        }
    }

    // MARK: Listening

    private func ringAll() {
        for wakeup in state.withLock({ Array($0.readers.values) }) { wakeup.fire() }
    }

    /// A NOTIFY: some node committed, so whatever was cached may be stale and readers should look.
    /// A record commit's payload is its last sequence; every other write's (the schema's) is empty.
    private func heardNotification(payload: String) {
        state.withLock { state in
            state.generation &+= 1
            if payload.isEmpty { state.schemaGeneration &+= 1 }
        }
        ringAll()
    }

    /// Listening (again): commits made while it was not were not heard, so the stamp moves and
    /// every reader looks, catching up by sequence.
    private func connected(backendProcessID: Int32?) {
        state.withLock { state in
            state.generation &+= 1
            state.schemaGeneration &+= 1
            state.listening = true
            state.backendProcessID = backendProcessID
            state.connections += 1
        }
        ringAll()
    }

    /// The connection dropped or could not be made. Readers are not rung: nothing is there to
    /// read yet; they are rung when listening resumes (and their poll interval still runs).
    private func disconnected() {
        state.withLock { state in
            state.listening = false
            state.backendProcessID = nil
        }
    }

    /// After failed connections: 0.1 s, doubling, 2 s at most.
    static let reconnectBackoff = Backoff(first: .milliseconds(100), maximum: .seconds(2))

    /// Listens until cancelled, reconnecting after a dropped connection with a growing delay.
    private func run() async {
        var logger = Logger(label: "LocalCloud.postgres.listen")
        logger.logLevel = .critical
        var attempt = 0
        while !Task.isCancelled {
            do {
                // Made on each attempt: unusable TLS settings (a CA file gone) fail it, and it backs off.
                var configuration = try PostgresTLS.settings(for: url).connectionConfiguration(url)
                configuration.options.connectTimeout = connectTimeout.timeAmount
                // So an operator can tell it apart in pg_stat_activity.
                configuration.options.additionalStartupParameters = [("application_name", applicationName)]
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                attempt = 0
                do {
                    let backend = try await connection.query("SELECT pg_backend_pid()", logger: logger)
                        .collect().first?.decode(Int32.self)
                    let (interval, timeout, probeLogger) = (probeInterval, probeTimeout, logger)
                    try await connection.listen(on: channel) { notifications in
                        connected(backendProcessID: backend)
                        let prober = Task {
                            await Self.probe(connection, every: interval, timeout: timeout, logger: probeLogger)
                        }
                        defer { prober.cancel() }
                        for try await notification in notifications { heardNotification(payload: notification.payload) }
                    }
                } catch {}
                try? await connection.close()
            } catch {}
            disconnected()
            if Task.isCancelled { break }
            attempt += 1
            try? await Task.sleep(for: Self.reconnectBackoff.delay(afterFailures: attempt))
        }
    }

    /// Asks `SELECT 1` every `interval` until cancelled; closes the connection when an answer
    /// does not come within `timeout`, which ends the LISTEN and starts a reconnection.
    private static func probe(_ connection: PostgresConnection, every interval: Duration, timeout: Duration, logger: Logger) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            if Task.isCancelled { return }
            let answered = ProbeAnswer()
            // Its own task: a query on a dead connection may never return, and must not hold the prober.
            let query = Task {
                if (try? await connection.query("SELECT 1", logger: logger).collect()) != nil {
                    answered.arrived.store(true, ordering: .releasing)
                }
            }
            let deadline = ContinuousClock.now + timeout
            while !answered.arrived.load(ordering: .acquiring), ContinuousClock.now < deadline, !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(50))  // how often the prober looks for the answer
            }
            if Task.isCancelled { return }
            guard answered.arrived.load(ordering: .acquiring) else {
                query.cancel()
                try? await connection.close()
                return
            }
        }
    }
}

/// Whether one probe's `SELECT 1` was answered.
private final class ProbeAnswer: Sendable {
    let arrived = Atomic<Bool>(false)
}
