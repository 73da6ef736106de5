import Logging
import Synchronization

/// The push sessions open on this node (SSE streams and webcourier polls), checked every
/// `interval` so that signing out, or a token's expiry or revocation, ends them on every node.
///
/// ```swift
/// let id = sessions.watch(session) { continuation.finish() }   // called once, when it ends
/// defer { sessions.unwatch(session, id: id) }
/// ```
///
/// One check per distinct session per interval, however many streams share it. The identity store
/// is the source of truth, so a sign-out on another node (sharing the database) or from the console
/// (sharing the files) is seen within `interval` plus the store's own lookup cache (at most 1 s).
/// A check that fails (the database unreachable) keeps the streams open: only a session the store
/// says is over ends them.
///
/// Invariant: the checking task runs exactly while some stream is watched.
final class PushSessions: Sendable {
    private struct State {
        var watchers: [PushSession: [UInt64: @Sendable () -> Void]] = [:]
        var nextID: UInt64 = 0
        var checking = false
    }

    private let state = Mutex(State())
    private let authenticator: any RequestAuthenticator
    let interval: Duration
    private let logger: Logger

    init(authenticator: any RequestAuthenticator, interval: Duration, logger: Logger) {
        self.authenticator = authenticator
        self.interval = interval
        self.logger = logger
    }

    /// Calls `onEnd` once when the session ends (never after ``unwatch(_:id:)``).
    /// - Returns: the ID to unwatch with.
    func watch(_ session: PushSession, onEnd: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, start) = state.withLock { state in
            state.nextID += 1
            state.watchers[session, default: [:]][state.nextID] = onEnd
            let start = !state.checking
            state.checking = true
            return (state.nextID, start)
        }
        if start { Task { await self.check() } }
        return id
    }

    func unwatch(_ session: PushSession, id: UInt64) {
        state.withLock { state in
            state.watchers[session]?[id] = nil
            if state.watchers[session]?.isEmpty == true { state.watchers[session] = nil }
        }
    }

    /// How many streams are watched, for tests and the benchmark.
    var count: Int { state.withLock { $0.watchers.values.reduce(0) { $0 + $1.count } } }

    private func check() async {
        while true {
            try? await Task.sleep(for: interval)
            let sessions = state.withLock { state -> [PushSession] in
                if state.watchers.isEmpty { state.checking = false }
                return Array(state.watchers.keys)
            }
            if sessions.isEmpty { return }
            for session in sessions {
                let live: Bool
                do {
                    live = try await authenticator.isLive(session)
                } catch {
                    logger.warning("Could not check a push session; it stays open", metadata: ["error": "\(error)"])
                    continue
                }
                if live { continue }
                let ended = state.withLock { state in state.watchers.removeValue(forKey: session) }
                for onEnd in (ended ?? [:]).values { onEnd() }
            }
        }
    }
}
