import Foundation
import Synchronization

/// Fetches records by ID, like `CKFetchRecordsOperation`.
///
/// ```swift
/// let op = FetchRecordsOperation(recordIDs: [id])
/// op.desiredKeys = ["image"]
/// op.perRecordResultBlock = { id, result in … }
/// database.add(op)
/// ```
public final class FetchRecordsOperation: DatabaseOperation, @unchecked Sendable {
    /// At most this many IDs per operation.
    public static let maximumRecords = 400

    private struct Settings {
        var recordIDs: [Record.ID]
        var desiredKeys: [String]?
        var perRecordResultBlock: (@Sendable (Record.ID, Result<Record, any Error>) -> Void)?
        var fetchRecordsResultBlock: (@Sendable (Result<Void, any Error>) -> Void)?
    }

    private let settings: Mutex<Settings>

    public init(recordIDs: [Record.ID]) {
        settings = Mutex(Settings(recordIDs: recordIDs))
        super.init()
    }

    public var recordIDs: [Record.ID] {
        get { settings.withLock { $0.recordIDs } }
        set { settings.withLock { $0.recordIDs = newValue } }
    }

    /// Only these fields are read; asset files of other fields are never touched.
    public var desiredKeys: [String]? {
        get { settings.withLock { $0.desiredKeys } }
        set { settings.withLock { $0.desiredKeys = newValue } }
    }

    public var perRecordResultBlock: (@Sendable (Record.ID, Result<Record, any Error>) -> Void)? {
        get { settings.withLock { $0.perRecordResultBlock } }
        set { settings.withLock { $0.perRecordResultBlock = newValue } }
    }

    /// Called once at the end: success, `partialFailure` when some records failed, or the error.
    public var fetchRecordsResultBlock: (@Sendable (Result<Void, any Error>) -> Void)? {
        get { settings.withLock { $0.fetchRecordsResultBlock } }
        set { settings.withLock { $0.fetchRecordsResultBlock = newValue } }
    }

    override func execute(in database: Database) async throws {
        let settings = settings.withLock { $0 }
        guard settings.recordIDs.count <= Self.maximumRecords else {
            throw CloudError(.limitExceeded, "\(settings.recordIDs.count) records requested; at most \(Self.maximumRecords) per operation")
        }
        let results = try await database.store().fetchRecords(settings.recordIDs, desiredKeys: settings.desiredKeys, context: database.context)
        var failures: [(Record.ID, CloudError)] = []
        for id in settings.recordIDs {
            if isCancelled { throw Self.cancelledError }
            let result = results[id] ?? .failure(CloudError(.unknownItem, "Record not found: \(id.recordName)", recordID: id))
            switch result {
            case .success(let record): settings.perRecordResultBlock?(id, .success(record))
            case .failure(let error):
                failures.append((id, error))
                settings.perRecordResultBlock?(id, .failure(error))
            }
        }
        if let error = CloudError.partialFailure(failures, what: "records") {
            settings.fetchRecordsResultBlock?(.failure(error))
        } else {
            settings.fetchRecordsResultBlock?(.success(()))
        }
    }

    override func finish(with error: CloudError) {
        fetchRecordsResultBlock?(.failure(error))
    }
}
