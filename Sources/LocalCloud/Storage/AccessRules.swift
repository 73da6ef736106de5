/// CloudKit's access rules, decided once for every store: the account rule, the schema (with
/// just-in-time evolution in development), the public database's security roles and the
/// indexes a query needs.
///
/// A store only loads and saves its schema, under its own locking; the decision is here:
///
/// ```swift
/// let schema = rules.needsSchema(request, context: context) ? try currentSchema() : Schema()
/// if let evolved = try rules.decide(request, schema: schema, context: context) {
///     try saveSchema(evolved)      // in the same transaction as the write
/// }
/// ```
///
/// - No account: public data is read-only and there is no private or shared database.
/// - Saves must fit the schema; in development a new type or field is added to it.
/// - The public database applies the security roles: READ for fetches and queries, CREATE for
///   new records, WRITE (or `_creator`'s) for changes and deletes.
/// - Queries may not match list elements the schema cannot, and need the indexes CloudKit would
///   need (when ``checksIndexes``).
package struct AccessRules: Sendable {
    /// Development evolves the schema just in time; production refuses what it lacks.
    package var environment: Container.Environment
    /// Whether queries need QUERYABLE/SORTABLE fields and only SEARCHABLE ones are indexed for text.
    package var checksIndexes: Bool
    /// Whether the schema applies at all: a bare store (some tests) has only the account rule.
    package var appliesSchema: Bool

    package init(environment: Container.Environment, checksIndexes: Bool = true) {
        self.environment = environment
        self.checksIndexes = checksIndexes
        self.appliesSchema = true
    }

    /// Only the account rule: for a store opened without a container's schema.
    package static let accountOnly: AccessRules = {
        var rules = AccessRules(environment: .development, checksIndexes: false)
        rules.appliesSchema = false
        return rules
    }()

    /// Whether ``decide(_:schema:context:)`` reads the schema for `request`, so a store can skip
    /// loading it when not.
    package func needsSchema(_ request: AccessRequest, context: StoreContext) -> Bool {
        guard appliesSchema else { return false }
        switch request {
        case .query, .create, .update: return true
        case .fetch, .delete: return context.scope == .public
        case .modifyZone: return false
        }
    }

    /// Decides `request` on `schema` (the stored one, or any schema when
    /// ``needsSchema(_:context:)`` is false).
    ///
    /// - Returns: the schema to save in the request's transaction when a save evolved it (in
    ///   development), `nil` when the stored one stands.
    /// - Throws: `CloudError` `.notAuthenticated` without an account, `.permissionFailure` for a
    ///   missing role, `.invalidArguments` for a save or query the schema refuses.
    package func decide(_ request: AccessRequest, schema: Schema, context: StoreContext) throws -> Schema? {
        try Self.checkAccount(writes: request.writes, context: context)
        guard appliesSchema else { return nil }
        let isPublic = context.scope == .public
        let user = context.user
        switch request {
        case let .query(query):
            let recordType = query.recordType
            if isPublic {
                try schema.checkPermission(.read, recordType: recordType, user: user, creator: nil)
            }
            try schema.checkListMatches(recordType: recordType, predicate: query.predicate)
            if checksIndexes, schema.recordTypes[recordType] != nil {
                try schema.checkIndexes(recordType: recordType, predicate: query.predicate, sortKeys: query.sort.map(Self.predicateKey))
            }
            return nil
        case let .fetch(recordType, creator):
            guard isPublic else { return nil }
            try schema.checkPermission(.read, recordType: recordType, user: user, creator: Self.userName(creator))
            return nil
        case let .create(recordType, fields):
            let evolved = try evolution(recordType: recordType, fields: fields, schema: schema)
            if isPublic {
                try (evolved ?? schema).checkPermission(.create, recordType: recordType, user: user, creator: nil)
            }
            return evolved
        case let .update(recordType, creator, fields):
            let evolved = try evolution(recordType: recordType, fields: fields, schema: schema)
            if isPublic {
                try (evolved ?? schema).checkPermission(.write, recordType: recordType, user: user, creator: Self.userName(creator))
            }
            return evolved
        case let .delete(recordType, creator):
            guard isPublic else { return nil }
            try schema.checkPermission(.write, recordType: recordType, user: user, creator: Self.userName(creator))
            return nil
        case .modifyZone:
            return nil
        }
    }

    /// The account rule alone: no account means read-only public data and no private or shared data.
    package static func checkAccount(writes: Bool, context: StoreContext) throws {
        guard context.user == nil else { return }
        switch context.scope {
        case .public:
            if writes {
                throw CloudError(.notAuthenticated, "No account: sign in (set LOCALCLOUD_USER) to write to the public database")
            }
        case .private, .shared:
            throw CloudError(.notAuthenticated, "No account: the \(context.scope) database needs a signed-in user")
        }
    }

    /// The fields of a type whose text goes into the full-text index; `nil` means every string
    /// field. With index checks on, only SEARCHABLE fields do, as in CloudKit.
    package func searchableFields(recordType: String, schema: Schema) -> Set<String>? {
        guard appliesSchema, checksIndexes else { return nil }
        return Set(schema.recordTypes[recordType]?.fields.filter(\.isSearchable).map(\.name) ?? [])
    }

    /// Whether ``searchableFields(recordType:schema:)`` reads the schema.
    package var searchNeedsSchema: Bool { appliesSchema && checksIndexes }

    /// The schema a save of these fields needs, when it differs from `schema` (development only;
    /// production throws instead).
    private func evolution(recordType: String, fields: [String: FieldValue], schema: Schema) throws -> Schema? {
        try schema.checkingSave(recordType: recordType, fields: fields, justInTime: environment == .development)
    }

    /// `_alice` → `alice`: the stores keep creators as user record names.
    package static func userName(_ userRecordName: String) -> String? {
        userRecordName.hasPrefix("_") ? String(userRecordName.dropFirst()) : (userRecordName.isEmpty ? nil : userRecordName)
    }

    /// The predicate key a sort key names, for the index check.
    package static func predicateKey(_ sort: QuerySortKey) -> PredicateKey {
        if sort.location == nil, let system = SystemField(anyName: sort.key) {
            switch system {
            case .createTime: return .creationDate
            case .modTime: return .modificationDate
            case .recordID: return .recordName
            case .createdBy: return .creatorUserRecordID
            case .modifiedBy: return .lastModifiedUserRecordID
            case .etag: return .field(sort.key)
            }
        }
        return .field(sort.key)
    }
}
