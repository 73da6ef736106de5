import GRDB

/// What a store call is about to do, for the access check.
enum AccessRequest {
    /// The whole validated query, so schema rules can check each key it filters and sorts on.
    case query(QueryRequest)
    case fetch(recordType: String, creator: String)
    case create(recordType: String, fields: [String: FieldValue])
    case update(recordType: String, creator: String, fields: [String: FieldValue])
    case delete(recordType: String, creator: String)
    case modifyZone
}

/// The check that runs inside the store's transaction before every read and write.
///
/// The schema and security-role issue plugs its rules in here (schema validation, grants,
/// `_creator` ownership); it gets the open `db` so it can read its own tables.
protocol AccessPolicy: Sendable {
    func check(_ request: AccessRequest, context: StoreContext, db: GRDB.Database) throws
    /// The fields of a type whose text goes into the full-text index; `nil` means every string field.
    func searchableFields(recordType: String, db: GRDB.Database) throws -> Set<String>?
}

extension AccessPolicy {
    func searchableFields(recordType: String, db: GRDB.Database) throws -> Set<String>? { nil }
}

/// The rules that hold without a schema: no account means read-only public data and no private data.
struct AccountAccessPolicy: AccessPolicy {
    func check(_ request: AccessRequest, context: StoreContext, db: GRDB.Database) throws {
        guard context.user == nil else { return }
        switch (request, context.scope) {
        case (.query, .public), (.fetch, .public):
            return
        case (_, .public):
            throw CloudError(.notAuthenticated, "No account: sign in (set LOCALCLOUD_USER) to write to the public database")
        case (_, .private), (_, .shared):
            throw CloudError(.notAuthenticated, "No account: the \(context.scope) database needs a signed-in user")
        }
    }
}
