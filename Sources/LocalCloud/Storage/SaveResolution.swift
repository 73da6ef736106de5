/// CloudKit's save and delete rules, decided once for every store: given the pending change, the
/// row the store found (if any) and the save policy, whether to insert, update, report a
/// conflict or refuse, with one set of messages.
///
/// ```swift
/// switch try SaveResolution.save(id, type: record.recordType, clientTag: tag, existing: row.map { ($0.recordType, $0.changeTag) }, rule: rule) {
/// case .insert: …                                    // a new row
/// case .update(let mergesServerFields): …             // the row, with the server's other fields kept when true
/// case .conflict(let serverTag): throw SaveResolution.changed(id, serverTag: serverTag, server: …, client: record)
/// }
/// ```
///
/// A store only reads the row, fetches the server record for a conflict, and writes.
package enum SaveResolution {
    /// What a save does.
    package enum Decision: Equatable, Sendable {
        /// Insert a new row.
        case insert
        /// Update the row; with `mergesServerFields`, only the sent keys change and the server's
        /// other fields stay (``merged(_:sentKeys:server:)``).
        case update(mergesServerFields: Bool)
        /// The client's copy is stale: the caller fetches the server record for ``changed(_:serverTag:server:client:)``.
        case conflict(serverTag: String)
    }

    /// The row a save or delete found, as both SQL stores read it: the decision needs its type
    /// and change tag; the write that follows, its row ID, creation and stored fields (``FieldsJSON``).
    package struct ExistingRow: Sendable {
        package var id: Int64
        package var recordType: String
        package var createdAt: Double
        package var createdBy: String
        package var changeTag: String
        package var fields: String

        package init(id: Int64, recordType: String, createdAt: Double, createdBy: String, changeTag: String, fields: String) {
            self.id = id
            self.recordType = recordType
            self.createdAt = createdAt
            self.createdBy = createdBy
            self.changeTag = changeTag
            self.fields = fields
        }
    }

    /// Decides a save.
    ///
    /// - Parameters:
    ///   - clientTag: the change tag of the copy being saved; `nil` for a record never saved.
    ///   - existing: the row with the record's name, if there is one.
    /// - Throws: `invalidArguments` when the name is taken by another type; `unknownItem` when a
    ///   fetched record was deleted since and the policy checks tags.
    package static func save(_ id: Record.ID, type: String, clientTag: String?, existing: ExistingRow?,
                             rule: SaveRule) throws -> Decision {
        guard let existing else {
            if clientTag != nil && rule.policy == .ifServerRecordUnchanged {
                throw CloudError(.unknownItem, "Record \(id.recordName) no longer exists on the server", recordID: id)
            }
            return .insert
        }
        guard existing.recordType == type else {
            throw CloudError(.invalidArguments, "Record \(id.recordName) exists with type \(existing.recordType), not \(type)")
        }
        if rule.policy == .ifServerRecordUnchanged && clientTag != existing.changeTag {
            return .conflict(serverTag: existing.changeTag)
        }
        return .update(mergesServerFields: !rule.writesAllFields)
    }

    /// Decides a delete of an existing row: `nil` to go ahead, or the server tag of a conflict
    /// (the caller fetches the server record for ``changed(_:serverTag:server:client:)``). A
    /// delete that finds no row fails with ``notFound(_:)``.
    ///
    /// - Parameter ifChangeTag: the tag the delete requires, if any.
    package static func deleteConflict(existing: ExistingRow, ifChangeTag: String?) -> String? {
        guard let ifChangeTag, ifChangeTag != existing.changeTag else { return nil }
        return existing.changeTag
    }

    /// The fields an update writes when it merges: the server's, with the sent keys replaced.
    package static func merged(_ fields: [String: FieldValue], sentKeys: [String], server: [String: FieldValue]) -> [String: FieldValue] {
        var merged = server
        for key in sentKeys { merged[key] = fields[key] }
        return merged
    }

    // MARK: Messages

    /// `serverRecordChanged`: the client's copy is older than the server's.
    package static func changed(_ id: Record.ID, serverTag: String, server: Record?, client: Record? = nil) -> CloudError {
        CloudError(.serverRecordChanged, "Record \(id.recordName) changed on the server since it was fetched (server tag \(serverTag))",
                   recordID: id, serverRecord: server, clientRecord: client)
    }

    /// `serverRecordChanged`: another writer changed the row between this save's read and its write.
    package static func changedDuringSave(_ id: Record.ID) -> CloudError {
        CloudError(.serverRecordChanged, "Record \(id.recordName) changed on the server during this save", recordID: id)
    }

    /// `serverRecordChanged`: another writer inserted the same name between this save's read and its insert.
    package static func createdConcurrently(_ id: Record.ID) -> CloudError {
        CloudError(.serverRecordChanged, "Record \(id.recordName) was created by another save at the same time", recordID: id)
    }

    /// `unknownItem`: no record has this name.
    package static func notFound(_ id: Record.ID) -> CloudError {
        CloudError(.unknownItem, "Record not found: \(id.recordName)", recordID: id)
    }
}
