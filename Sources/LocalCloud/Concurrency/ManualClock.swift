import Foundation
import Synchronization

/// A wall clock that moves only when told: tests of expiry, retry and eviction advance it instead of
/// sleeping or waiting for real time.
///
/// ```swift
/// let time = ManualClock()
/// configuration.clock = time.wallClock
/// time.advance(by: 10)    // whatever waits for an instant up to 10 s from now wakes and sees it passed
/// ```
package final class ManualClock: Sendable {
    private struct State {
        var now: Date
        var observers: [@Sendable () -> Void] = []
    }

    private let state: Mutex<State>

    /// Starts at `start` (by default 2026-01-01 00:00 UTC, a fixed instant, so results repeat).
    package init(_ start: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        state = Mutex(State(now: start))
    }

    package var now: Date { state.withLock { $0.now } }

    /// Moves the clock forward (or back, with a negative interval) and wakes whatever waits on it.
    package func advance(by seconds: TimeInterval) {
        let observers = state.withLock { state in
            state.now += seconds
            return state.observers
        }
        for observer in observers { observer() }
    }

    /// Sets the clock to `date` and wakes whatever waits on it.
    package func set(_ date: Date) {
        let observers = state.withLock { state in
            state.now = date
            return state.observers
        }
        for observer in observers { observer() }
    }

    /// This clock as LocalCloud takes it (``Container/Configuration/clock``, the server's authenticator).
    package var wallClock: WallClock {
        WallClock(id: "manual-\(ObjectIdentifier(self).hashValue)", read: { [self] in now },
                  onAdvance: { [self] handler in state.withLock { $0.observers.append(handler) } })
    }
}
