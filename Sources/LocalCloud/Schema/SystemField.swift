/// The implicit fields every record type has, under their text-schema names (`___recordID`)
/// and the names the CloudKit Console and its error messages use (`recordName`).
package enum SystemField: String, CaseIterable, Sendable {
    case createTime = "___createTime"
    case createdBy = "___createdBy"
    case etag = "___etag"
    case modTime = "___modTime"
    case modifiedBy = "___modifiedBy"
    case recordID = "___recordID"

    package init?(storedName: String) { self.init(rawValue: storedName) }

    /// Recognises the stored name, the console name and the record property name.
    package init?(anyName name: String) {
        switch name {
        case "___createTime", "createdTimestamp", "creationDate": self = .createTime
        case "___createdBy", "createdUserRecordName", "createdBy", "creatorUserRecordID": self = .createdBy
        case "___etag", "etag", "recordChangeTag": self = .etag
        case "___modTime", "modifiedTimestamp", "modificationDate": self = .modTime
        case "___modifiedBy", "modifiedUserRecordName", "modifiedBy", "lastModifiedUserRecordID": self = .modifiedBy
        case "___recordID", "recordName", "recordID": self = .recordID
        default: return nil
        }
    }

    /// The name the CloudKit Console shows, used in index error messages.
    package var consoleName: String {
        switch self {
        case .createTime: "createdTimestamp"
        case .createdBy: "createdUserRecordName"
        case .etag: "etag"
        case .modTime: "modifiedTimestamp"
        case .modifiedBy: "modifiedUserRecordName"
        case .recordID: "recordName"
        }
    }

    package var type: FieldType {
        switch self {
        case .createTime, .modTime: .timestamp
        case .createdBy, .modifiedBy, .recordID: .reference
        case .etag: .string
        }
    }

    /// Which index kinds CloudKit lets you put on this system field.
    package func allows(_ kind: IndexKind) -> Bool {
        switch (self, kind) {
        case (.recordID, .queryable), (.recordID, .sortable): true
        case (.createTime, .queryable), (.createTime, .sortable), (.modTime, .queryable), (.modTime, .sortable): true
        case (.createdBy, .queryable), (.createdBy, .sortable), (.modifiedBy, .queryable), (.modifiedBy, .sortable): true
        default: false
        }
    }

    /// The field with no indexes, as a just-in-time type gets it.
    package var unindexed: FieldSchema { FieldSchema(name: rawValue, type: type) }

    /// The system field a predicate or sort key names, if any.
    init?(_ key: PredicateKey) {
        switch key {
        case .field: return nil
        case .creationDate: self = .createTime
        case .modificationDate: self = .modTime
        case .recordName: self = .recordID
        case .creatorUserRecordID: self = .createdBy
        case .lastModifiedUserRecordID: self = .modifiedBy
        }
    }
}
