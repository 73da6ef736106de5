import Foundation
import Synchronization

// The async convenience API: each call runs its operation in the caller's task.
extension Database {
    /// Saves a record and returns the server's copy (new change tag and dates).
    /// - Throws: the record's own error, e.g. `serverRecordChanged` with `serverRecord`.
    public func save(_ record: Record) async throws -> Record {
        let (saved, _) = try await modifyRecords(saving: [record], deleting: [], savePolicy: .ifServerRecordUnchanged, atomically: true)
        guard let result = saved[record.recordID] else {
            throw CloudError(.internalError, "The save produced no result", recordID: record.recordID)
        }
        return try result.get()
    }

    /// Fetches one record. - Throws: `unknownItem` when it does not exist.
    public func record(for recordID: Record.ID) async throws -> Record {
        let results = try await records(for: [recordID], desiredKeys: nil)
        guard let result = results[recordID] else {
            throw CloudError(.unknownItem, "Record not found: \(recordID.recordName)", recordID: recordID)
        }
        return try result.get()
    }

    /// Fetches records by ID; each has its own result. Only `desiredKeys` are read when given.
    public func records(for ids: [Record.ID], desiredKeys: [String]? = nil) async throws -> [Record.ID: Result<Record, any Error>] {
        let results = Mutex<[Record.ID: Result<Record, any Error>]>([:])
        let operation = FetchRecordsOperation(recordIDs: ids)
        operation.desiredKeys = desiredKeys
        operation.perRecordResultBlock = { id, result in results.withLock { $0[id] = result } }
        try await run(operation) { operation, done in
            operation.fetchRecordsResultBlock = { result in done(Self.ignoringPartialFailure(result)) }
        }
        return results.withLock { $0 }
    }

    /// Deletes a record, and every record that refers to it with `.deleteSelf`.
    @discardableResult
    public func deleteRecord(withID recordID: Record.ID) async throws -> Record.ID {
        let (_, deleted) = try await modifyRecords(saving: [], deleting: [recordID], savePolicy: .ifServerRecordUnchanged, atomically: true)
        guard let result = deleted[recordID] else {
            throw CloudError(.internalError, "The delete produced no result", recordID: recordID)
        }
        try result.get()
        return recordID
    }

    /// One page of a query's results and the cursor for the next page (`nil` when there is none).
    public func records(
        matching query: Query,
        inZoneWith zoneID: RecordZone.ID? = nil,
        desiredKeys: [String]? = nil,
        resultsLimit: Int = QueryOperation.maximumResults
    ) async throws -> (matchResults: [(Record.ID, Result<Record, any Error>)], queryCursor: Query.Cursor?) {
        let operation = QueryOperation(query: query)
        operation.zoneID = zoneID
        return try await runQuery(operation, desiredKeys: desiredKeys, resultsLimit: resultsLimit)
    }

    /// The next page after `queryCursor`.
    public func records(
        continuingMatchFrom queryCursor: Query.Cursor,
        desiredKeys: [String]? = nil,
        resultsLimit: Int = QueryOperation.maximumResults
    ) async throws -> (matchResults: [(Record.ID, Result<Record, any Error>)], queryCursor: Query.Cursor?) {
        try await runQuery(QueryOperation(cursor: queryCursor), desiredKeys: desiredKeys, resultsLimit: resultsLimit)
    }

    /// Saves and deletes in one request. Per-item failures are in the results; only a failure of
    /// the whole request (too many items, no account, a cancelled task) throws.
    public func modifyRecords(
        saving recordsToSave: [Record],
        deleting recordIDsToDelete: [Record.ID],
        savePolicy: ModifyRecordsOperation.RecordSavePolicy = .ifServerRecordUnchanged,
        atomically: Bool = true
    ) async throws -> (saveResults: [Record.ID: Result<Record, any Error>], deleteResults: [Record.ID: Result<Void, any Error>]) {
        let saves = Mutex<[Record.ID: Result<Record, any Error>]>([:])
        let deletes = Mutex<[Record.ID: Result<Void, any Error>]>([:])
        let operation = ModifyRecordsOperation(recordsToSave: recordsToSave, recordIDsToDelete: recordIDsToDelete)
        operation.savePolicy = savePolicy
        operation.isAtomic = atomically
        operation.perRecordSaveBlock = { id, result in saves.withLock { $0[id] = result } }
        operation.perRecordDeleteBlock = { id, result in deletes.withLock { $0[id] = result } }
        try await run(operation) { operation, done in
            operation.modifyRecordsResultBlock = { result in done(Self.ignoringPartialFailure(result)) }
        }
        return (saves.withLock { $0 }, deletes.withLock { $0 })
    }

    // MARK: Running operations from async code

    private func runQuery(_ operation: QueryOperation, desiredKeys: [String]?, resultsLimit: Int) async throws
        -> (matchResults: [(Record.ID, Result<Record, any Error>)], queryCursor: Query.Cursor?) {
        let matches = Mutex<[(Record.ID, Result<Record, any Error>)]>([])
        let cursor = Mutex<Query.Cursor?>(nil)
        operation.desiredKeys = desiredKeys
        operation.resultsLimit = resultsLimit
        operation.recordMatchedBlock = { id, result in matches.withLock { $0.append((id, result)) } }
        try await run(operation) { operation, done in
            operation.queryResultBlock = { result in
                switch result {
                case .success(let next):
                    cursor.withLock { $0 = next }
                    done(.success(()))
                case .failure(let error):
                    done(.failure(error))
                }
            }
        }
        return (matches.withLock { $0 }, cursor.withLock { $0 })
    }

    /// Runs `operation` in this task and returns once its result block ran; cancelling the task
    /// cancels the operation. No queue and no thread hop: the async API's one path to the store.
    func run<Op: DatabaseOperation>(
        _ operation: Op,
        attach: (Op, @escaping @Sendable (Result<Void, any Error>) -> Void) -> Void
    ) async throws {
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        attach(operation) { result in outcome.withLock { $0 = result } }
        operation.database = self
        await withTaskCancellationHandler {
            await operation.perform()
        } onCancel: {
            operation.cancel()
        }
        guard let result = outcome.withLock({ $0 }) else {
            throw CloudError(.internalError, "The operation reported no result")
        }
        try result.get()
    }

    static func ignoringPartialFailure(_ result: Result<Void, any Error>) -> Result<Void, any Error> {
        if case .failure(let error as CloudError) = result, error.code == .partialFailure { return .success(()) }
        return result
    }

    /// Runs a store call (after the simulated latency) and returns its value.
    func perform<Value: Sendable>(_ work: @escaping @Sendable (Database) async throws -> Value) async throws -> Value {
        let box = Mutex<Value?>(nil)
        try await run(StoreCallOperation<Value>(work)) { call, done in
            call.completion = { result in
                switch result {
                case .success(let value):
                    box.withLock { $0 = value }
                    done(.success(()))
                case .failure(let error):
                    done(.failure(error))
                }
            }
        }
        return try box.withLock { value in
            guard let value else { throw CloudError(.internalError, "The call produced no result") }
            return value
        }
    }
}
