import Foundation
import LocalCloud
import PostgresNIO

/// What a write is about to do, for the access check inside its transaction.
enum WriteCheck: Sendable {
    case create(recordType: String, fields: [String: FieldValue])
    case update(recordType: String, creator: String, fields: [String: FieldValue])
    case delete(recordType: String, creator: String)
}

// The rules the SQLite store's `SchemaAccessPolicy` applies, on the schema stored in PostgreSQL:
// accounts first, then the schema (just-in-time evolution in development), security roles on the
// public database, and the indexes a query needs.
extension PostgresStore {
    /// No account: public data is read-only and there is no private or shared database.
    func checkAccount(write: Bool, context: StoreContext) throws {
        guard context.user == nil else { return }
        switch context.scope {
        case .public:
            if write { throw CloudError(.notAuthenticated, "No account: sign in (set LOCALCLOUD_USER) to write to the public database") }
        case .private, .shared:
            throw CloudError(.notAuthenticated, "No account: the \(context.scope) database needs a signed-in user")
        }
    }

    func checkQuery(_ schema: Schema, _ request: QueryRequest, context: StoreContext) throws {
        try checkAccount(write: false, context: context)
        if context.scope == .public {
            try schema.checkPermission(.read, recordType: request.recordType, user: context.user, creator: nil)
        }
        try schema.checkListMatches(recordType: request.recordType, predicate: request.predicate)
        if checksIndexes, schema.recordTypes[request.recordType] != nil {
            try schema.checkIndexes(recordType: request.recordType, predicate: request.predicate,
                                    sortKeys: request.sort.map(SchemaAccessPolicy.predicateKey))
        }
    }

    func checkRead(_ schema: Schema, recordType: String, creator: String, context: StoreContext) throws {
        try checkAccount(write: false, context: context)
        guard context.scope == .public else { return }
        try schema.checkPermission(.read, recordType: recordType, user: context.user, creator: SchemaAccessPolicy.userName(creator))
    }

    /// Checks a write in its transaction; a save that brings new types or fields in development
    /// evolves the schema there too, under the schema row's lock so concurrent nodes add up.
    func checkWrite(_ check: WriteCheck, context: StoreContext, connection: PostgresConnection, logger: Logger) async throws {
        try checkAccount(write: true, context: context)
        var schema = try await currentSchema(connection, logger: logger)
        switch check {
        case .create(let type, let fields), .update(let type, _, let fields):
            if try schema.checkingSave(recordType: type, fields: fields, justInTime: environment == .development) != nil {
                let locked = try await lockedSchema(connection, logger: logger)
                if let next = try locked.checkingSave(recordType: type, fields: fields, justInTime: environment == .development) {
                    try await saveSchema(next, connection: connection, logger: logger)
                    schema = next
                } else {
                    schema = locked
                }
            }
        case .delete:
            break
        }
        guard context.scope == .public else { return }
        switch check {
        case .create(let type, _):
            try schema.checkPermission(.create, recordType: type, user: context.user, creator: nil)
        case .update(let type, let creator, _), .delete(let type, let creator):
            try schema.checkPermission(.write, recordType: type, user: context.user, creator: SchemaAccessPolicy.userName(creator))
        }
    }

    /// With index checks on, only SEARCHABLE fields go into the full-text vector, as in CloudKit.
    func searchableFields(recordType: String, connection: PostgresConnection, logger: Logger) async throws -> Set<String>? {
        guard checksIndexes else { return nil }
        let type = try await currentSchema(connection, logger: logger).recordTypes[recordType]
        return Set(type?.fields.filter(\.isSearchable).map(\.name) ?? [])
    }

    // MARK: The stored schema

    /// The stored schema, decoded again only when its stamp changed (another node may have changed it).
    ///
    /// While no node committed since it was last read (the change stamp, from memory), that copy
    /// is used without a round trip; the change stamp is taken first, so a commit landing during
    /// the read leaves the copy stale.
    func currentSchema(_ connection: PostgresConnection, logger: Logger) async throws -> Schema {
        let changeStamp = listener.stamp()
        if let known = schemaByChangeStamp.withLock({ $0 }), known.stamp == changeStamp { return known.schema }
        let rows = try await connection.rows(PostgresStatement("SELECT stamp FROM \(schema).schema WHERE id = 1"), logger: logger)
        let stamp = try rows.first?.decode(String.self) ?? ""
        let current: Schema
        if let cached = schemaCache.withLock({ $0 }), cached.stamp == stamp {
            current = cached.schema
        } else {
            let loaded = try await loadSchema(connection, logger: logger, locking: false)
            schemaCache.withLock { $0 = (loaded.stamp, loaded.schema) }
            current = loaded.schema
        }
        schemaByChangeStamp.withLock { $0 = (changeStamp, current) }
        return current
    }

    func currentSchema() async throws -> Schema {
        if let known = schemaByChangeStamp.withLock({ $0 }), known.stamp == listener.stamp() { return known.schema }
        return try await call { pool in try await pool.withConnection { try await self.currentSchema($0, logger: pool.logger) } }
    }

    func lockedSchema(_ connection: PostgresConnection, logger: Logger) async throws -> Schema {
        try await loadSchema(connection, logger: logger, locking: true).schema
    }

    private func loadSchema(_ connection: PostgresConnection, logger: Logger, locking: Bool) async throws -> (schema: Schema, stamp: String) {
        let rows = try await connection.rows(PostgresStatement(
            "SELECT stamp, body FROM \(schema).schema WHERE id = 1" + (locking ? " FOR UPDATE" : "")), logger: logger)
        guard let row = rows.first else { return (Schema(), "") }
        let (stamp, body) = try row.decode((String, String?).self)
        guard let body else { return (Schema(), stamp) }
        do {
            return (try JSONDecoder().decode(Schema.self, from: Data(body.utf8)), stamp)
        } catch {
            throw CloudError(.badDatabase, "The stored schema cannot be read: \(error)", cause: error)
        }
    }

    /// Writes the schema and brings the expression indexes in line with it, in the caller's transaction.
    func saveSchema(_ next: Schema, connection: PostgresConnection, logger: Logger) async throws {
        // Until this transaction commits (and moves the change stamp), nothing may take the old copy as current.
        schemaByChangeStamp.withLock { $0 = nil }
        let body = String(decoding: try JSONEncoder().encode(next), as: UTF8.self)
        var statement = PostgresStatement("UPDATE \(schema).schema SET ")
        statement.sql += "version = \(statement.bind(next.version)), stamp = \(statement.bind(UUID().uuidString)), body = \(statement.bind(body)) WHERE id = 1"
        _ = try await connection.execute(statement, logger: logger)
        try await PostgresSchemaIndexes.synchronize(with: next, in: schema, connection: connection, logger: logger)
    }
}
