/// What every store checks on a record before saving it, and which of its fields the save writes.
///
/// ```swift
/// let (state, sentKeys) = try SaveCheck.validate(record, rule: rule)
/// // … the store turns new asset files into stored assets …
/// try SaveCheck.checkSize(fields)
/// ```
///
/// Store-independent: the embedded and the PostgreSQL store save differently below the seam, but
/// must refuse the same records with the same errors.
package enum SaveCheck {
    /// A record's fields may hold at most this many bytes, assets excluded (CloudKit's limit).
    package static let maximumRecordSize = 1_000_000

    /// Checks the record type, the record name and the field values, and returns the record's
    /// state with the keys the save writes: every field for `.allKeys` and new records, else the
    /// changed ones; each key is a valid field name, listed once.
    ///
    /// - Throws: `invalidArguments` naming what is wrong.
    package static func validate(_ record: Record, rule: SaveRule) throws -> (state: Record.State, sentKeys: [String]) {
        try FieldName.validate(record.recordType, what: "Record type")
        guard !record.recordID.recordName.isEmpty, record.recordID.recordName.utf8.count <= 255 else {
            throw CloudError(.invalidArguments, "Record name must be 1 to 255 bytes")
        }
        let state = record.snapshot
        if let bad = state.invalidKeys.first {
            throw CloudError(.invalidArguments, "Field '\(bad)' holds a value LocalCloud cannot store")
        }
        let sent = rule.writesAllFields || state.recordChangeTag == nil ? Array(state.fields.keys) + state.changed : state.changed
        let keys = Array(Set(sent))
        for key in keys { try FieldName.validate(key) }
        return (state, keys)
    }

    /// - Throws: `limitExceeded` when the fields are over ``maximumRecordSize``.
    package static func checkSize(_ fields: [String: FieldValue]) throws {
        let size = fields.reduce(0) { $0 + $1.key.utf8.count + $1.value.storageSize }
        if size > maximumRecordSize {
            throw CloudError(.limitExceeded, "Record is \(size) bytes; a record's fields are limited to 1 MB (assets excluded)")
        }
    }
}
