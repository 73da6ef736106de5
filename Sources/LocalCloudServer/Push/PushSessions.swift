import Foundation
import LocalCloud
import Logging
import Synchronization

/// The push sessions open on this node (SSE streams and webcourier polls), ended as soon as their
/// credentials end, so signing out, or a token's expiry or revocation, ends them on every node.
///
/// ```swift
/// let id = sessions.watch(session) { continuation.finish() }   // called once, when it ends
/// defer { sessions.unwatch(session, id: id) }
/// ```
///
/// Nothing polls. One task per node waits on a ``Wakeup`` that rings when
/// - a session is first watched (it is checked once, which also learns its token's expiry);
/// - the identity store reports a change (``CredentialChanges``: a revocation through this node, a
///   write to the identity files by another process, a NOTIFY from another node): every session is
///   rechecked against the store, which stays the source of truth;
/// - the earliest expiry instant arrives (a timer to that instant, not a periodic check);
/// - `settleDelay` after a change: once more. Another process's commit is heard at its WAL
///   writes, before SQLite publishes it, so the check at the ring can still read the session live.
///
/// One check per distinct session, however many streams share it. A check that fails (the database
/// unreachable) keeps the session open and is retried a second later: only a session the store says
/// is over is ended.
///
/// Invariant: the checking task runs exactly while some session is watched.
final class PushSessions: Sendable {
    private struct Watched {
        var onEnd: [UInt64: @Sendable () -> Void] = [:]
        /// Until when the credentials stay live unless revoked; `nil` until the first check.
        var liveUntil: Date?
    }

    private struct State {
        var sessions: [PushSession: Watched] = [:]
        var nextID: UInt64 = 0
        var running = false
        /// Set by a credential change: the next check covers every session, not only new ones.
        var recheckAll = false
        /// Set by a credential change: the pass after the next comes `settleDelay` later, and covers every session.
        var settleRecheck = false
        /// Containers whose other processes' and nodes' changes are heard already.
        var heardContainers: Set<String> = []
        /// How many times the loop has checked, and the wait it chose last: tests see that a moved
        /// clock was looked at, and that the wait runs to the next expiry instant.
        var passes = 0
        var lastWait: Duration?
    }

    private let state = Mutex(State())
    private let wakeup = Wakeup()
    private let authenticator: any RequestAuthenticator
    private let logger: Logger
    /// The longest single wait: a far expiry is waited for in steps, so a clock set meanwhile is noticed.
    static let longestWait = Duration.seconds(3600)
    /// How soon a check that failed is tried again.
    static let retryInterval = Duration.seconds(1)
    /// How long after a change it is checked again: a commit heard at its first write is published
    /// by then, and the identity cache's entry read at the ring (`maximumAge`, 1 s) has expired.
    static let settleDelay = Duration.milliseconds(1200)

    init(authenticator: any RequestAuthenticator, logger: Logger) {
        self.authenticator = authenticator
        self.logger = logger
        authenticator.credentialChanges?.observe { [weak self] in self?.credentialsChanged() }
        // A clock moved by hand (tests) may have passed an expiry the wait below was measured to.
        authenticator.clock.onAdvance { [weak self] in self?.wakeup.fire() }
    }

    /// Calls `onEnd` once when the session ends (never after ``unwatch(_:id:)``).
    /// - Returns: the ID to unwatch with.
    func watch(_ session: PushSession, onEnd: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, start, newContainer) = state.withLock { state in
            state.nextID += 1
            state.sessions[session, default: Watched()].onEnd[state.nextID] = onEnd
            let start = !state.running
            state.running = true
            return (state.nextID, start, state.heardContainers.insert(session.container).inserted)
        }
        // Before the first check: a revocation from now on either rings or is seen by that check.
        if newContainer { authenticator.watchCredentialChanges(container: session.container) }
        if start {
            Task { await self.run() }
        } else {
            wakeup.fire()
        }
        return id
    }

    func unwatch(_ session: PushSession, id: UInt64) {
        state.withLock { state in
            state.sessions[session]?.onEnd[id] = nil
            if state.sessions[session]?.onEnd.isEmpty == true { state.sessions[session] = nil }
        }
    }

    /// How many streams and polls are watched, for tests and the benchmark.
    var count: Int { state.withLock { $0.sessions.values.reduce(0) { $0 + $1.onEnd.count } } }

    /// How many checks the loop has finished, and the wait the last one chose (for tests).
    var progress: (passes: Int, lastWait: Duration?) { state.withLock { ($0.passes, $0.lastWait) } }

    /// Some credential may have ended: recheck every session now.
    func credentialsChanged() {
        state.withLock { state in
            state.recheckAll = true
            state.settleRecheck = true
        }
        wakeup.fire()
    }

    private func run() async {
        while true {
            let (toCheck, settles) = state.withLock { state -> ([PushSession], Bool) in
                let all = state.recheckAll
                state.recheckAll = false
                defer { state.settleRecheck = false }
                return (state.sessions.filter { all || $0.value.liveUntil == nil }.map(\.key), state.settleRecheck)
            }
            var failed = false
            for session in toCheck {
                let until: Date?
                do {
                    until = try await authenticator.liveUntil(session)
                } catch {
                    logger.warning("Could not check a push session; it stays open", metadata: ["error": "\(error)"])
                    failed = true
                    continue
                }
                if let until {
                    state.withLock { $0.sessions[session]?.liveUntil = until }
                } else {
                    end(session)
                }
            }
            let now = authenticator.clock.now
            let expired = state.withLock { state in
                state.sessions.filter { $0.value.liveUntil.map { $0 <= now } ?? false }.map(\.key)
            }
            for session in expired { end(session) }
            let next = state.withLock { state -> Date?? in
                if state.sessions.isEmpty {
                    state.running = false
                    return .none
                }
                return .some(state.sessions.values.compactMap(\.liveUntil).min())
            }
            guard let next else { return }
            var wait = Self.longestWait
            if let next, next < .distantFuture {
                let seconds = max(0.001, next.timeIntervalSince(now))
                wait = min(wait, .milliseconds(Int64((seconds * 1000).rounded(.up))))
            }
            if failed { wait = min(wait, Self.retryInterval) }
            if settles { wait = min(wait, Self.settleDelay) }
            state.withLock { state in
                if settles { state.recheckAll = true }
                state.passes += 1
                state.lastWait = wait
            }
            await wakeup.wait(upTo: wait)
        }
    }

    private func end(_ session: PushSession) {
        let ended = state.withLock { state in state.sessions.removeValue(forKey: session) }
        for onEnd in (ended?.onEnd ?? [:]).values { onEnd() }
    }
}
