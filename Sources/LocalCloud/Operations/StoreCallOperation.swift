import Foundation
import Synchronization

/// Runs one store call as an operation: the zone calls, which have no public operation yet.
final class StoreCallOperation<Value: Sendable>: DatabaseOperation, @unchecked Sendable {
    private let work: @Sendable (Database) async throws -> Value
    /// In a struct: a `Mutex` of a bare closure adds reabstraction thunks on every access.
    private let resultHandler = Mutex<Handler?>(nil)
    private struct Handler {
        let call: @Sendable (Result<Value, CloudError>) -> Void
    }

    init(_ work: @escaping @Sendable (Database) async throws -> Value) {
        self.work = work
        super.init()
    }

    var completion: (@Sendable (Result<Value, CloudError>) -> Void)? {
        get { resultHandler.withLock { $0 }?.call }
        set { resultHandler.withLock { $0 = newValue.map(Handler.init(call:)) } }
    }

    override func execute(in database: Database) async throws {
        let value = try await work(database)
        completion?(.success(value))
    }

    override func finish(with error: CloudError) {
        completion?(.failure(error))
    }
}
