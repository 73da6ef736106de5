import Foundation

extension Record {
    /// A record as a store keeps it: its fields plus the system fields every store holds in columns.
    ///
    /// ```swift
    /// let record = Record.stored(type: "Restaurant", id: id, fields: fields, createdAt: created, modifiedAt: now,
    ///                            createdBy: "_alice", modifiedBy: "_bob", changeTag: tag)
    /// ```
    package static func stored(type: String, id: Record.ID, fields: [String: FieldValue], createdAt: Double, modifiedAt: Double,
                               createdBy: String, modifiedBy: String, changeTag: String?) -> Record {
        var state = Record.State()
        state.fields = fields
        state.creationDate = Date(timeIntervalSince1970: createdAt)
        state.modificationDate = Date(timeIntervalSince1970: modifiedAt)
        state.creatorUserRecordID = Record.ID(recordName: createdBy)
        state.lastModifiedUserRecordID = Record.ID(recordName: modifiedBy)
        state.recordChangeTag = changeTag
        return Record(recordType: type, recordID: id, state: state)
    }
}
