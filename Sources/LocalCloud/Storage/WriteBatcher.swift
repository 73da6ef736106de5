import Dispatch
import GRDB
import Synchronization

/// Group commit: writes that arrive while one transaction is running share the next one.
///
/// Each write runs in its own savepoint, so one that fails or rolls back leaves the others'
/// changes alone, and together they behave as the same writes one after another. A busy store
/// commits once per batch instead of once per write: 32 clients saving one record each are 32
/// savepoints and one commit (the WAL gets each changed page once, not 32 times).
///
/// One waiting writer at a time leads: it runs batches until its own write is done, then hands
/// the lead to the next waiting writer, so no caller serves the others for long.
final class WriteBatcher: Sendable {
    /// A write waiting for its turn. Its fields are written by the leading thread before it
    /// signals the semaphore and read by the waiting thread after, so the semaphore orders them.
    final class Job: @unchecked Sendable {
        /// Runs the write in the open transaction and keeps its own result; never throws.
        /// Released before the writer is woken: it wraps a closure that must not outlive the write.
        var run: ((GRDB.Database) -> Void)?
        /// Replaces the result when the batch's transaction failed as a whole.
        var fail: ((any Error) -> Void)?
        let semaphore = DispatchSemaphore(value: 0)
        var finished = false

        init(run: @escaping (GRDB.Database) -> Void, fail: @escaping (any Error) -> Void) {
            self.run = run
            self.fail = fail
        }
    }

    private struct State {
        var queue: [Job] = []
        var leading = false
    }

    private let state = Mutex(State())
    /// The most writes one transaction carries.
    static let maximumBatch = 64

    /// Queues `job` and returns once it has run; `transact` runs one batch in one transaction.
    func submit(_ job: Job, transact: ([Job]) -> Void) {
        var leads = state.withLock { state in
            state.queue.append(job)
            if state.leading { return false }
            state.leading = true
            return true
        }
        while !leads {
            job.semaphore.wait()
            if job.finished { return }
            leads = true  // promoted: the previous leader handed over
        }
        while !job.finished {
            let batch = state.withLock { state in
                let batch = Array(state.queue.prefix(Self.maximumBatch))
                state.queue.removeFirst(batch.count)
                return batch
            }
            transact(batch)
            for done in batch {
                done.run = nil
                done.fail = nil
            }
            for done in batch where done !== job {
                done.finished = true
                done.semaphore.signal()
            }
            job.finished = job.finished || batch.contains { $0 === job }
        }
        state.withLock { state in
            if let next = state.queue.first {
                next.semaphore.signal()  // it wakes unfinished, so it leads
            } else {
                state.leading = false
            }
        }
    }
}
