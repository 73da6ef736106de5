import GRDB
import Synchronization

/// Group commit: writes that arrive while one transaction is running share the next one.
///
/// Each write runs in its own savepoint, so one that fails or rolls back leaves the others'
/// changes alone, and together they behave as the same writes one after another. A busy store
/// commits once per batch instead of once per write: 32 clients saving one record each are 32
/// savepoints and one commit (the WAL gets each changed page once, not 32 times).
///
/// The first write to find the batcher idle starts a task that commits batches until the queue
/// is empty; every writer suspends until the batch holding its write has committed.
final class WriteBatcher: Sendable {
    /// A write waiting for its turn.
    struct Job: Sendable {
        /// Runs the write in the open transaction and keeps its own result; never throws.
        let run: @Sendable (GRDB.Database) -> Void
        /// Replaces the result when the batch's transaction failed as a whole.
        let fail: @Sendable (any Error) -> Void
    }

    private struct Queued {
        var job: Job
        var done: CheckedContinuation<Void, Never>
    }

    private struct State {
        var queue: [Queued] = []
        var draining = false
    }

    private let state = Mutex(State())
    /// The most writes one transaction carries.
    static let maximumBatch = 64

    /// Queues `job` and returns once it has run; `transact` runs one batch in one transaction.
    func submit(_ job: Job, transact: @escaping @Sendable ([Job]) async -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let starts = state.withLock { state in
                state.queue.append(Queued(job: job, done: done))
                if state.draining { return false }
                state.draining = true
                return true
            }
            if starts { Task { await self.drain(transact) } }
        }
    }

    /// Commits batches until no write waits.
    private func drain(_ transact: @Sendable ([Job]) async -> Void) async {
        while true {
            let batch = state.withLock { state in
                let batch = Array(state.queue.prefix(Self.maximumBatch))
                state.queue.removeFirst(batch.count)
                if batch.isEmpty { state.draining = false }
                return batch
            }
            if batch.isEmpty { return }
            await transact(batch.map(\.job))
            for queued in batch { queued.done.resume() }
        }
    }
}
