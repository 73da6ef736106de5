import Foundation

/// A record's system fields as bytes, like `CKRecord.encodeSystemFields(with:)` and `CKRecord(coder:)`.
///
/// ```swift
/// let bytes = fetched.encodedSystemFields()          // keep it beside the app's own copy of the fields
/// let record = try Record(systemFields: bytes)        // later, perhaps offline: same ID, type and change tag
/// record["name"] = "Cafe Deadend"
/// try await database.save(record)                     // conflicts if the server's copy changed since
/// ```
///
/// An app that shows its own copy of a record keeps these bytes, so that an edit made later is
/// saved against the version the user saw, without fetching the record again. The fields are not
/// included: the recreated record has none, and a save writes only the keys set on it.
extension Record {
    /// The record's ID, type, change tag, dates and users, as JSON.
    private struct SystemFields: Codable {
        var recordType: String
        var recordID: ID
        var recordChangeTag: String?
        var creationDate: Date?
        var modificationDate: Date?
        var creatorUserRecordID: ID?
        var lastModifiedUserRecordID: ID?
    }

    /// The system fields (ID, type, change tag, dates, users) without the fields.
    public func encodedSystemFields() -> Data {
        let state = snapshot
        let fields = SystemFields(
            recordType: recordType, recordID: recordID, recordChangeTag: state.recordChangeTag,
            creationDate: state.creationDate, modificationDate: state.modificationDate,
            creatorUserRecordID: state.creatorUserRecordID, lastModifiedUserRecordID: state.lastModifiedUserRecordID)
        // Encoding plain strings and dates cannot fail; an empty result would be refused on decode.
        return (try? JSONEncoder().encode(fields)) ?? Data()
    }

    /// A record with the system fields from ``encodedSystemFields()`` and no fields.
    /// - Throws: `invalidArguments` when the bytes are not system fields.
    public convenience init(systemFields data: Data) throws {
        let fields: SystemFields
        do {
            fields = try JSONDecoder().decode(SystemFields.self, from: data)
        } catch {
            throw CloudError(.invalidArguments, "These bytes are not a record's system fields", cause: error)
        }
        var state = State()
        state.recordChangeTag = fields.recordChangeTag
        state.creationDate = fields.creationDate
        state.modificationDate = fields.modificationDate
        state.creatorUserRecordID = fields.creatorUserRecordID
        state.lastModifiedUserRecordID = fields.lastModifiedUserRecordID
        self.init(recordType: fields.recordType, recordID: fields.recordID, state: state)
    }
}
