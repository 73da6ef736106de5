import Foundation
import Synchronization

/// The base of LocalCloud's operations, like `CKDatabaseOperation`: an `Operation` that runs
/// against a database, after the simulated latency, and reports through its blocks exactly once.
///
/// An operation is a façade over the async store calls: `start()` (an `OperationQueue` or a direct
/// call) starts a task that runs the work and finishes the operation when its blocks have run, so
/// no thread waits while the database works. `Database`'s async API runs the same work in the
/// caller's task (``perform(in:)``), with no queue and no thread hop. Cancelling makes the result
/// block report `operationCancelled`.
public class DatabaseOperation: Operation, @unchecked Sendable {
    private struct Base {
        var database: Database?
        var reported = false
        var executing = false
        var finished = false
        var task: Task<Void, Never>?
    }

    private let base = Mutex(Base())

    /// The database the operation runs against; `Database.add(_:)` sets it.
    public var database: Database? {
        get { base.withLock { $0.database } }
        set { base.withLock { $0.database = newValue } }
    }

    override public init() {
        super.init()
    }

    // An asynchronous operation: the queue's thread is free while the task runs.
    override public var isAsynchronous: Bool { true }
    override public var isExecuting: Bool { base.withLock { $0.executing } }
    override public var isFinished: Bool { base.withLock { $0.finished } }

    override public func start() {
        guard !isCancelled else {
            reportOnce { finish(with: Self.cancelledError) }
            markFinished()
            return
        }
        willChangeValue(forKey: "isExecuting")
        base.withLock { $0.executing = true }
        didChangeValue(forKey: "isExecuting")
        let task = Task {
            await self.perform()
            self.markFinished()
        }
        base.withLock { $0.task = task }
    }

    override public func cancel() {
        super.cancel()
        base.withLock { $0.task }?.cancel()
    }

    /// Runs the operation in the current task: the latency, the work, and exactly one report.
    func perform() async {
        guard let database else {
            reportOnce { finish(with: CloudError(.invalidArguments, "The operation has no database; add it with Database.add(_:)")) }
            return
        }
        let latency = database.core.configuration.simulatedLatency
        if latency > .zero { try? await Task.sleep(for: latency) }
        guard !isCancelled, !Task.isCancelled else {
            reportOnce { finish(with: Self.cancelledError) }
            return
        }
        guard claimReport() else { return }
        do {
            try await execute(in: database)
        } catch let error as CloudError {
            finish(with: error)
        } catch is CancellationError {
            finish(with: Self.cancelledError)
        } catch where CloudError.isOutOfSpace(error) {
            finish(with: CloudError.diskFull(writing: "the local store", cause: error))
        } catch {
            finish(with: CloudError(.internalError, "\(error)", cause: error))
        }
    }

    /// The operation's work; subclasses call their blocks here.
    func execute(in database: Database) async throws {}

    /// Reports a failure of the whole operation through the subclass's result block.
    func finish(with error: CloudError) {}

    static var cancelledError: CloudError { CloudError(.operationCancelled, "The operation was cancelled") }

    private func markFinished() {
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        base.withLock { base in
            base.executing = false
            base.finished = true
            base.task = nil
        }
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }

    /// Whether this call is the one that reports (the first).
    private func claimReport() -> Bool {
        base.withLock { base in
            defer { base.reported = true }
            return !base.reported
        }
    }

    private func reportOnce(_ body: () -> Void) {
        if claimReport() { body() }
    }
}

extension CloudError {
    /// `partialFailure` carrying the per-item errors, or `nil` when nothing failed.
    static func partialFailure<ID: Hashable & Sendable>(_ errors: [(ID, CloudError)], what: String) -> CloudError? {
        guard !errors.isEmpty else { return nil }
        var byItem: [AnyHashableSendable: CloudError] = [:]
        for (id, error) in errors { byItem[AnyHashableSendable(id)] = error }
        return CloudError(.partialFailure, "\(errors.count) of the \(what) failed: \(errors[0].1.message)", partialErrorsByItemID: byItem)
    }
}
