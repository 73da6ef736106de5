import Synchronization

/// A one-slot doorbell: ``fire()`` wakes the current ``wait(upTo:)``, or the next one when nobody waits,
/// so a ring between two waits is never lost. Rings while nobody waits collapse into one.
package final class Wakeup: Sendable {
    package init() {}

    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    package func fire() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns at the next ring (at once for one since the last wait), after `timeout`, or on cancellation.
    package func wait(upTo timeout: Duration) async {
        let rang = state.withLock { state -> Bool in
            defer { state.pending = false }
            return state.pending
        }
        if rang { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.ring() }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    private func ring() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
