import Foundation
import GRDB

/// Where a container environment keeps its schema: one row of JSON in its own SQLite file,
/// plus the SQL indexes the schema's index flags call for.
///
/// Registered as a migration after the store's own, so it is created once per file.
enum SchemaStorage {
    static let migrationName = "v2: schema (record types, indexes, roles)"

    static func registerMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration(migrationName) { db in
            try db.execute(sql: """
                CREATE TABLE localcloud_schema (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    version INTEGER NOT NULL,
                    -- A new random stamp on every write, so readers know when a cached copy is stale.
                    stamp TEXT NOT NULL,
                    body TEXT NOT NULL
                );
                """)
        }
    }

    /// Whether the stored stamp is `expected` (`""` when no schema was ever written).
    ///
    /// Every query and save asks this, so it compares the column's bytes in place: GRDB's
    /// generic `String.fetchOne` cost several microseconds a call.
    static func stamp(_ db: GRDB.Database, is expected: String) throws -> Bool {
        let statement = try db.cachedStatement(sql: "SELECT stamp FROM localcloud_schema WHERE id = 1")
        let rows = try Row.fetchCursor(statement)
        guard try rows.next() != nil else { return expected.isEmpty }
        return StatementColumns(statement).withText(0) { expected.hasUTF8($0) } ?? expected.isEmpty
    }

    static func load(_ db: GRDB.Database) throws -> (schema: Schema, stamp: String) {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT stamp, body FROM localcloud_schema WHERE id = 1")) else {
            return (Schema(), "")
        }
        let body: String = row["body"]
        do {
            return (try JSONDecoder().decode(Schema.self, from: Data(body.utf8)), row["stamp"])
        } catch {
            throw CloudError(.badDatabase, "The stored schema cannot be read: \(error)", cause: error)
        }
    }

    /// Writes the schema and brings the SQL indexes in line with it, in the caller's transaction.
    ///
    /// - Parameter rebuildingSearch: refill the full-text rows of types whose SEARCHABLE fields
    ///   changed (when the full-text index holds searchable fields only).
    static func save(_ schema: Schema, _ db: GRDB.Database, rebuildingSearch: Bool = false) throws {
        if rebuildingSearch {
            let old = try load(db).schema
            for type in schema.sortedRecordTypes {
                let before = old.recordTypes[type.name]?.fields.filter(\.isSearchable) ?? []
                let after = type.fields.filter(\.isSearchable)
                if before != after { try SchemaIndexes.rebuildSearch(for: type, db) }
            }
        }
        let body = String(decoding: try JSONEncoder().encode(schema), as: UTF8.self)
        try db.execute(sql: """
            INSERT INTO localcloud_schema (id, version, stamp, body) VALUES (1, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET version = excluded.version, stamp = excluded.stamp, body = excluded.body
            """, arguments: [schema.version, UUID().uuidString, body])
        try SchemaIndexes.synchronize(with: schema, db)
    }
}
