import Foundation
import LocalCloud
import PostgresNIO

// The store's part of the access rules (``AccessRules`` decides): loading the schema, and saving
// an evolved one under the schema row's lock so that concurrent nodes' evolutions add up.
extension PostgresStore {
    /// Applies the access rules to a query on the current schema.
    func checkQuery(_ request: QueryRequest, context: StoreContext) async throws {
        let query = AccessRequest.query(request)
        let schema = access.needsSchema(query, context: context) ? try await currentSchema() : Schema()
        _ = try access.decide(query, schema: schema, context: context)
    }

    /// Applies the access rules to a write in its transaction; a save that brings new types or
    /// fields in development evolves the schema there too.
    func checkWrite(_ request: AccessRequest, context: StoreContext, connection: PostgresConnection, logger: Logger) async throws {
        let schema = access.needsSchema(request, context: context) ? try await currentSchema(connection, logger: logger) : Schema()
        guard try access.decide(request, schema: schema, context: context) != nil else { return }
        // Decided again on the locked row: another node may have evolved it meanwhile.
        let locked = try await lockedSchema(connection, logger: logger)
        if let next = try access.decide(request, schema: locked, context: context) {
            try await saveSchema(next, connection: connection, logger: logger)
        }
    }

    /// The fields of a type whose text goes into the full-text vector; `nil` means every string field.
    func searchableFields(recordType: String, connection: PostgresConnection, logger: Logger) async throws -> Set<String>? {
        guard access.searchNeedsSchema else { return nil }
        return access.searchableFields(recordType: recordType, schema: try await currentSchema(connection, logger: logger))
    }

    // MARK: The stored schema

    /// The stored schema, decoded again only when its stamp changed (another node may have changed it).
    ///
    /// While no node wrote the schema since it was last read (the schema stamp, from memory: record
    /// commits do not move it), that copy is used without a round trip; the stamp is taken first,
    /// so a schema write landing during the read leaves the copy stale.
    func currentSchema(_ connection: PostgresConnection, logger: Logger) async throws -> Schema {
        let changeStamp = listener.schemaStamp()
        if let known = schemaByChangeStamp.withLock({ $0 }), known.stamp == changeStamp { return known.schema }
        let rows = try await connection.preparedRows(PostgresStatement("SELECT stamp FROM \(schema).schema WHERE id = 1"), logger: logger)
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
        if let known = schemaByChangeStamp.withLock({ $0 }), known.stamp == listener.schemaStamp() { return known.schema }
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
        // Other nodes keep their copy until a NOTIFY with an empty payload (delivered on COMMIT);
        // this node moves its schema stamp when the transaction commits (``schemaSaved(on:)``).
        var notify = PostgresStatement("SELECT pg_notify(")
        notify.sql += "\(notify.bind(channel)), '')"
        _ = try await connection.rows(notify, logger: logger)
        _ = schemaSavedOn.withLock { $0.insert(ObjectIdentifier(connection)) }
    }

    /// Whether the transaction open on `connection` saved the schema; clears the mark.
    func schemaSaved(on connection: PostgresConnection) -> Bool {
        schemaSavedOn.withLock { $0.remove(ObjectIdentifier(connection)) != nil }
    }
}
