import Foundation
import Synchronization

/// Runs one store call as an operation: the zone calls, which have no public operation yet.
final class StoreCallOperation<Value: Sendable>: DatabaseOperation, @unchecked Sendable {
    private let work: @Sendable (Database) async throws -> Value
    private let resultHandler = Mutex<(@Sendable (Result<Value, CloudError>) -> Void)?>(nil)

    init(_ work: @escaping @Sendable (Database) async throws -> Value) {
        self.work = work
        super.init()
    }

    var completion: (@Sendable (Result<Value, CloudError>) -> Void)? {
        get { resultHandler.withLock { $0 } }
        set { resultHandler.withLock { $0 = newValue } }
    }

    override func execute(in database: Database) async throws {
        let value = try await work(database)
        completion?(.success(value))
    }

    override func finish(with error: CloudError) {
        completion?(.failure(error))
    }
}
