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
///
/// The queue only: what a job is and how a batch commits belong to the store (the SQLite store's
/// jobs run in one GRDB transaction, the PostgreSQL store's in one on one connection).
package final class WriteBatcher<Job: Sendable>: Sendable {
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
    package static var maximumBatch: Int { 64 }

    package init() {}

    /// Queues `job` and returns once it has run; `transact` runs one batch in one transaction.
    package func submit(_ job: Job, transact: @escaping @Sendable ([Job]) async -> Void) async {
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
