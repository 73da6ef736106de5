/// One save or delete of a modify call, with its own conflict rule.
///
/// `ModifyRecordsOperation` gives every save the same policy; CloudKit Web Services' `records/modify`
/// gives each operation its own (`create`, `update`, `forceReplace`, `delete`…), so the store takes them per item.
enum ModifyItem: Sendable {
    case save(Record, SaveRule)
    /// With a change tag, the delete fails with `serverRecordChanged` when the server's tag differs.
    case delete(Record.ID, ifChangeTag: String?)

    var isDelete: Bool {
        if case .delete = self { true } else { false }
    }

    var recordID: Record.ID {
        switch self {
        case .save(let record, _): record.recordID
        case .delete(let id, _): id
        }
    }
}

/// How a save treats the server's copy.
struct SaveRule: Sendable, Hashable {
    var policy: ModifyRecordsOperation.RecordSavePolicy
    /// Fields the save does not carry are removed (CloudKit Web Services' `replace`); with
    /// `.allKeys` this is always so.
    var replacesFields = false

    var writesAllFields: Bool { replacesFields || policy == .allKeys }
}

/// What happened to one item, in request order.
struct ModifyItemResult: Sendable {
    enum Outcome: Sendable {
        case saved(Record)
        case deleted
        case failed(CloudError, isDelete: Bool)
    }

    var recordID: Record.ID
    var outcome: Outcome
}
