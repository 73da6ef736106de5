import Synchronization

/// A one-slot doorbell: ``fire()`` wakes the current ``wait(upTo:)``, or the next one when nobody waits,
/// so a ring between two waits is never lost. Rings while nobody waits collapse into one.
package final class Wakeup: Sendable {
    package init() {}

    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Bool, Never>?
    }

    private let state = Mutex(State())

    package func fire() {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: true)
    }

    /// Returns at the next ring (at once for one since the last wait), after `timeout`, or on
    /// cancellation; `true` when a ring ended the wait.
    @discardableResult
    package func wait(upTo timeout: Duration) async -> Bool {
        let rang = state.withLock { state -> Bool in
            defer { state.pending = false }
            return state.pending
        }
        if rang { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.ring() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            // The ring may land as the timeout ends: it counts (it was consumed).
            var rang = await group.next() ?? false
            group.cancelAll()
            for await result in group { rang = rang || result }
            return rang
        }
    }

    /// `true` for a ring, `false` when cancelled first.
    private func ring() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { state -> Bool? in
                    if state.pending {
                        state.pending = false
                        return true
                    }
                    if Task.isCancelled { return false }
                    state.waiter = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: false)
        }
    }
}
