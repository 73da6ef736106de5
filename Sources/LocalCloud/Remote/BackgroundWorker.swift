import Foundation
import Synchronization

/// One background task of a remote store's (the outbox's uploads, the catch-up): started when
/// there is work, it runs a step until the step says it is done, and backs off (up to 30 s) while
/// the step throws (the server cannot be reached).
///
/// ```swift
/// let uploader = BackgroundWorker(name: "LocalCloud outbox")
/// uploader.start { try await uploadNext() }   // true: call again; false: done
/// uploader.start { … }                        // while running: try again now rather than after the backoff
/// ```
///
/// A backoff is a wait on a ``Wakeup`` with a timeout on the monotonic clock: a `start` or `stop`
/// cuts it short, and a wall clock that is off (or is set while waiting) neither stretches a
/// backoff to hours nor skips it.
final class BackgroundWorker: Sendable {
    private struct State {
        var running = false
        var stopped = false
        /// Set by `start` while running: try again now rather than after the backoff.
        var nudged = false
        /// The step the next round runs: the latest `start`'s (a probe after a reconnect's
        /// "reachable" is a different job, and must not turn into a rerun of the first).
        var step: (@Sendable () async throws -> Bool)?
    }

    private let name: String
    /// After failed steps: 1 s, doubling, 30 s at most.
    static let backoff = Backoff(first: .seconds(1), maximum: .seconds(30))
    private let state = Mutex(State())
    private let wakeup = Wakeup()

    init(name: String) {
        self.name = name
    }

    /// Runs `step` until it returns false; a thrown error waits, then retries. While a run is
    /// under way, a second `start` cuts its current wait short, and its step runs next (after the
    /// running one, which is kept).
    func start(_ step: @escaping @Sendable () async throws -> Bool) {
        let starts = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.step = step
            if state.running {
                state.nudged = true
                return false
            }
            state.running = true
            return true
        }
        guard starts else {
            wakeup.fire()
            return
        }
        Task.detached(name: name) { [self] in
            await run()
        }
    }

    private func run() async {
        var failures = 0
        while let step = state.withLock({ $0.stopped ? nil : $0.step }) {
            do {
                if try await step() {
                    failures = 0
                    continue
                }
                // Done, unless a `start` came while the step ran: then its work may not be in it.
                let again = state.withLock { state -> Bool in
                    if state.nudged && !state.stopped {
                        state.nudged = false
                        return true
                    }
                    state.running = false
                    state.step = nil  // it holds its owner: kept only while running
                    return false
                }
                if again { continue }
                return
            } catch {
                failures += 1
                let deadline = ContinuousClock.now + Self.backoff.delay(afterFailures: failures)
                while ContinuousClock.now < deadline {
                    let wake = state.withLock { state in
                        defer { state.nudged = false }
                        return state.stopped || state.nudged
                    }
                    if wake { break }
                    await wakeup.wait(upTo: deadline - ContinuousClock.now)
                }
            }
        }
        state.withLock { state in
            state.running = false
            state.step = nil
        }
    }

    /// Ends the task after its current step; later `start`s do nothing.
    func stop() {
        state.withLock { $0.stopped = true }
        wakeup.fire()
    }
}
