import Foundation
import Synchronization

/// The base of LocalCloud's operations, like `CKDatabaseOperation`: an `Operation` that runs
/// against a database, after the simulated latency, and reports through its blocks exactly once.
///
/// Blocks run on the database queue's thread, never on the caller's. Cancelling makes the
/// result block report `operationCancelled`.
public class DatabaseOperation: Operation, @unchecked Sendable {
    private struct Base {
        var database: Database?
        var reported = false
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

    override public func start() {
        if isCancelled { reportOnce { finish(with: Self.cancelledError) } }
        super.start()
    }

    override public func main() {
        guard let database else {
            reportOnce { finish(with: CloudError(.invalidArguments, "The operation has no database; add it with Database.add(_:)")) }
            return
        }
        waitSimulatedLatency(database.core.configuration.simulatedLatency)
        guard !isCancelled else {
            reportOnce { finish(with: Self.cancelledError) }
            return
        }
        reportOnce {
            do {
                try execute(in: database)
            } catch let error as CloudError {
                finish(with: error)
            } catch where CloudError.isOutOfSpace(error) {
                finish(with: CloudError.diskFull(writing: "the local store", cause: error))
            } catch {
                finish(with: CloudError(.internalError, "\(error)", cause: error))
            }
        }
    }

    /// The operation's work; subclasses call their blocks here.
    func execute(in database: Database) throws {}

    /// Reports a failure of the whole operation through the subclass's result block.
    func finish(with error: CloudError) {}

    static var cancelledError: CloudError { CloudError(.operationCancelled, "The operation was cancelled") }

    private func reportOnce(_ body: () -> Void) {
        let first = base.withLock { base in
            defer { base.reported = true }
            return !base.reported
        }
        if first { body() }
    }

    /// Sleeps in short slices so that cancellation is noticed promptly.
    private func waitSimulatedLatency(_ latency: Duration) {
        guard latency > .zero else { return }
        let deadline = ContinuousClock.now + latency
        while !isCancelled {
            let left = deadline - ContinuousClock.now
            if left <= .zero { break }
            let slice = min(left, .milliseconds(10))
            Thread.sleep(forTimeInterval: Double(slice.components.seconds) + Double(slice.components.attoseconds) / 1e18)
        }
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
