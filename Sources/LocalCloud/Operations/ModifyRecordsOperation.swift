import Foundation
import Synchronization

/// Saves and deletes records in one request, like `CKModifyRecordsOperation`.
///
/// ```swift
/// let op = ModifyRecordsOperation(recordsToSave: [record], recordIDsToDelete: nil)
/// op.savePolicy = .changedKeys
/// op.modifyRecordsResultBlock = { result in … }
/// database.add(op)
/// ```
public final class ModifyRecordsOperation: DatabaseOperation, @unchecked Sendable {
    /// How a save treats the server's copy.
    public enum RecordSavePolicy: Int, Sendable, Hashable {
        /// Save only if the record's change tag matches the server's; else `serverRecordChanged`.
        case ifServerRecordUnchanged = 0
        /// Write the changed fields onto the server's record, whatever its version.
        case changedKeys = 1
        /// Replace the server's record with this one, whatever its version.
        case allKeys = 2
    }

    /// At most this many saves plus deletes per operation.
    public static let maximumItems = 400

    private struct Settings {
        var recordsToSave: [Record]?
        var recordIDsToDelete: [Record.ID]?
        var savePolicy = RecordSavePolicy.ifServerRecordUnchanged
        var isAtomic = true
        var perRecordSaveBlock: (@Sendable (Record.ID, Result<Record, any Error>) -> Void)?
        var perRecordDeleteBlock: (@Sendable (Record.ID, Result<Void, any Error>) -> Void)?
        var modifyRecordsResultBlock: (@Sendable (Result<Void, any Error>) -> Void)?
    }

    private let settings: Mutex<Settings>

    public init(recordsToSave: [Record]? = nil, recordIDsToDelete: [Record.ID]? = nil) {
        settings = Mutex(Settings(recordsToSave: recordsToSave, recordIDsToDelete: recordIDsToDelete))
        super.init()
    }

    public var recordsToSave: [Record]? {
        get { settings.withLock { $0.recordsToSave } }
        set { settings.withLock { $0.recordsToSave = newValue } }
    }

    public var recordIDsToDelete: [Record.ID]? {
        get { settings.withLock { $0.recordIDsToDelete } }
        set { settings.withLock { $0.recordIDsToDelete = newValue } }
    }

    public var savePolicy: RecordSavePolicy {
        get { settings.withLock { $0.savePolicy } }
        set { settings.withLock { $0.savePolicy = newValue } }
    }

    /// All or nothing (the default): if any item fails, none is written and the rest fail with `batchRequestFailed`.
    public var isAtomic: Bool {
        get { settings.withLock { $0.isAtomic } }
        set { settings.withLock { $0.isAtomic = newValue } }
    }

    public var perRecordSaveBlock: (@Sendable (Record.ID, Result<Record, any Error>) -> Void)? {
        get { settings.withLock { $0.perRecordSaveBlock } }
        set { settings.withLock { $0.perRecordSaveBlock = newValue } }
    }

    public var perRecordDeleteBlock: (@Sendable (Record.ID, Result<Void, any Error>) -> Void)? {
        get { settings.withLock { $0.perRecordDeleteBlock } }
        set { settings.withLock { $0.perRecordDeleteBlock = newValue } }
    }

    /// Called once at the end: success, `partialFailure` with per-item errors, or the error.
    public var modifyRecordsResultBlock: (@Sendable (Result<Void, any Error>) -> Void)? {
        get { settings.withLock { $0.modifyRecordsResultBlock } }
        set { settings.withLock { $0.modifyRecordsResultBlock = newValue } }
    }

    override func execute(in database: Database) async throws {
        let settings = settings.withLock { $0 }
        let saving = settings.recordsToSave ?? []
        let deleting = settings.recordIDsToDelete ?? []
        guard saving.count + deleting.count <= Self.maximumItems else {
            throw CloudError(.limitExceeded,
                             "\(saving.count + deleting.count) items in one request; at most \(Self.maximumItems) saves and deletes per operation")
        }
        let outcome = try await database.store().modifyRecords(
            saving: saving, deleting: deleting, policy: settings.savePolicy, atomically: settings.isAtomic, context: database.context)
        var failures: [(Record.ID, CloudError)] = []
        for (id, result) in outcome.saved {
            switch result {
            case .success(let record): settings.perRecordSaveBlock?(id, .success(record))
            case .failure(let error):
                failures.append((id, error))
                settings.perRecordSaveBlock?(id, .failure(error))
            }
        }
        for (id, result) in outcome.deleted {
            switch result {
            case .success: settings.perRecordDeleteBlock?(id, .success(()))
            case .failure(let error):
                failures.append((id, error))
                settings.perRecordDeleteBlock?(id, .failure(error))
            }
        }
        if let error = CloudError.partialFailure(failures, what: "saves and deletes") {
            settings.modifyRecordsResultBlock?(.failure(error))
        } else {
            settings.modifyRecordsResultBlock?(.success(()))
        }
    }

    override func finish(with error: CloudError) {
        modifyRecordsResultBlock?(.failure(error))
    }
}
