/// One save or delete of a modify call, with its own conflict rule.
///
/// `ModifyRecordsOperation` gives every save the same policy; CloudKit Web Services' `records/modify`
/// gives each operation its own (`create`, `update`, `forceReplace`, `delete`…), so the store takes them per item.
package enum ModifyItem: Sendable {
    case save(Record, SaveRule)
    /// With a change tag, the delete fails with `serverRecordChanged` when the server's tag differs.
    case delete(Record.ID, ifChangeTag: String?)

    package var isDelete: Bool {
        if case .delete = self { true } else { false }
    }

    package var recordID: Record.ID {
        switch self {
        case .save(let record, _): record.recordID
        case .delete(let id, _): id
        }
    }
}

/// How a save treats the server's copy.
package struct SaveRule: Sendable, Hashable {
    package var policy: ModifyRecordsOperation.RecordSavePolicy
    /// Fields the save does not carry are removed (CloudKit Web Services' `replace`); with
    /// `.allKeys` this is always so.
    package var replacesFields = false

    package var writesAllFields: Bool { replacesFields || policy == .allKeys }
}

/// What happened to one item, in request order.
package struct ModifyItemResult: Sendable {
    package enum Outcome: Sendable {
        case saved(Record)
        case deleted
        case failed(CloudError, isDelete: Bool)
    }

    package var recordID: Record.ID
    package var outcome: Outcome

    package init(recordID: Record.ID, outcome: Outcome) {
        self.recordID = recordID
        self.outcome = outcome
    }

    /// An atomic batch with a failure: the failures as they are, every other item (done, or not
    /// reached because the store stopped at the first failure) `batchRequestFailed`.
    package static func failingAtomicBatch(_ results: [ModifyItemResult], items: [ModifyItem]) -> [ModifyItemResult] {
        items.enumerated().map { index, item in
            if index < results.count, case .failed = results[index].outcome { return results[index] }
            let error = CloudError(.batchRequestFailed, "Not saved: another item in the atomic batch failed", recordID: item.recordID)
            return ModifyItemResult(recordID: item.recordID, outcome: .failed(error, isDelete: item.isDelete))
        }
    }
}
