import Foundation
import GRDB

// The store's part of the access rules (``AccessRules`` decides): loading the schema and saving
// an evolved one, inside the caller's transaction (a write's `BEGIN IMMEDIATE` is the lock).
extension SQLiteStore {
    /// Applies the access rules to `request`; a save that evolves the development schema stores it here.
    func checkAccess(_ request: AccessRequest, context: StoreContext, db: GRDB.Database) throws {
        let schema = access.needsSchema(request, context: context) ? try currentSchema(db) : Schema()
        if let evolved = try access.decide(request, schema: schema, context: context) {
            try SchemaStorage.save(evolved, db)
        }
    }

    /// The fields of a type whose text goes into the full-text index; `nil` means every string field.
    func searchableFields(recordType: String, db: GRDB.Database) throws -> Set<String>? {
        guard access.searchNeedsSchema else { return nil }
        return access.searchableFields(recordType: recordType, schema: try currentSchema(db))
    }

    /// The stored schema, decoded again only when another writer changed it.
    func currentSchema(_ db: GRDB.Database) throws -> Schema {
        if let cached = schemaCache.withLock({ $0 }), try SchemaStorage.stamp(db, is: cached.stamp) { return cached.schema }
        let loaded = try SchemaStorage.load(db)
        schemaCache.withLock { $0 = (loaded.stamp, loaded.schema) }
        return loaded.schema
    }
}
