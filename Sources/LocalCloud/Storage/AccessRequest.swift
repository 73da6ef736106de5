/// What a store call is about to do, for the access check.
package enum AccessRequest: Sendable {
    /// The whole validated query, so schema rules can check each key it filters and sorts on.
    case query(QueryRequest)
    case fetch(recordType: String, creator: String)
    case create(recordType: String, fields: [String: FieldValue])
    case update(recordType: String, creator: String, fields: [String: FieldValue])
    case delete(recordType: String, creator: String)
    case modifyZone

    /// Whether the request writes: without an account, the public database is read-only.
    var writes: Bool {
        switch self {
        case .query, .fetch: false
        case .create, .update, .delete, .modifyZone: true
        }
    }
}
