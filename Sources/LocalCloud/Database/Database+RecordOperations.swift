import Foundation

/// One operation of a CloudKit Web Services `records/modify`, each with the reference's conflict rule.
package enum RecordOperation: Sendable {
    /// Fails with `serverRecordChanged` when the record exists.
    case create(Record)
    /// Changes the given fields; the record's change tag must match the server's.
    case update(Record)
    /// Changes the given fields, whatever the server's version.
    case forceUpdate(Record)
    /// Replaces every field; the change tag must match.
    case replace(Record)
    /// Replaces every field, whatever the server's version.
    case forceReplace(Record)
    /// Deletes; with a change tag, only if it matches.
    case delete(Record.ID, changeTag: String?)
    case forceDelete(Record.ID)

    var item: ModifyItem {
        switch self {
        case .create(let record): .save(record.withoutChangeTag(), SaveRule(policy: .ifServerRecordUnchanged))
        case .update(let record): .save(record, SaveRule(policy: .ifServerRecordUnchanged))
        case .forceUpdate(let record): .save(record, SaveRule(policy: .changedKeys))
        case .replace(let record): .save(record, SaveRule(policy: .ifServerRecordUnchanged, replacesFields: true))
        case .forceReplace(let record): .save(record, SaveRule(policy: .allKeys))
        case .delete(let id, let tag): .delete(id, ifChangeTag: tag)
        case .forceDelete(let id): .delete(id, ifChangeTag: nil)
        }
    }
}

/// What one ``RecordOperation`` did, in request order.
package enum RecordOperationResult: Sendable {
    case saved(Record)
    case deleted(Record.ID)
    case failed(Record.ID, CloudError)
}

extension Database {
    /// Applies `operations` in one transaction, each with its own conflict rule.
    ///
    /// - Throws: only when the whole request fails (no account, too many operations); per-item
    ///   failures are results. With `atomically`, one failure fails every item.
    package func apply(_ operations: [RecordOperation], atomically: Bool) async throws -> [RecordOperationResult] {
        guard operations.count <= ModifyRecordsOperation.maximumItems else {
            throw CloudError(.limitExceeded, "\(operations.count) operations; at most \(ModifyRecordsOperation.maximumItems) per request")
        }
        let items = operations.map(\.item)
        return try await perform { db in
            try await db.store().modify(items, atomically: atomically, context: db.context).map { result in
                switch result.outcome {
                case .saved(let record): .saved(record)
                case .deleted: .deleted(result.recordID)
                case .failed(let error, _): .failed(result.recordID, error)
                }
            }
        }
    }
}

extension Record {
    /// The same record as a new one: a create ignores whatever version the client names.
    func withoutChangeTag() -> Record {
        var state = snapshot
        guard state.recordChangeTag != nil else { return self }
        state.recordChangeTag = nil
        return Record(recordType: recordType, recordID: recordID, state: state)
    }
}
