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
        var drainers = 0
    }

    private let state = Mutex(State())
    /// The most writes one transaction carries.
    package static var maximumBatch: Int { 64 }
    /// How many batches may run at once: 1 where one writer at a time is all the store allows
    /// (SQLite); more where transactions run side by side and only their commits queue
    /// (PostgreSQL: the change-log lock is taken last), so the batches' statements overlap.
    let concurrentBatches: Int

    package init(concurrentBatches: Int = 1) {
        self.concurrentBatches = max(1, concurrentBatches)
    }

    /// Queues `job` and returns once it has run; `transact` runs one batch in one transaction.
    package func submit(_ job: Job, transact: @escaping @Sendable ([Job]) async -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let starts = state.withLock { state in
                state.queue.append(Queued(job: job, done: done))
                if state.drainers >= concurrentBatches { return false }
                state.drainers += 1
                return true
            }
            if starts { Task { await self.drain(transact) } }
        }
    }

    /// Commits batches until no write waits.
    private func drain(_ transact: @Sendable ([Job]) async -> Void) async {
        while true {
            let batch = state.withLock { state in
                // An even share of what waits, so the other batches running get some too.
                let share = (state.queue.count + concurrentBatches - 1) / concurrentBatches
                let batch = Array(state.queue.prefix(min(Self.maximumBatch, max(1, share))))
                state.queue.removeFirst(batch.count)
                if batch.isEmpty { state.drainers -= 1 }
                return batch
            }
            if batch.isEmpty { return }
            await transact(batch.map(\.job))
            for queued in batch { queued.done.resume() }
        }
    }
}
