import Foundation
import GRDB

/// Schema management for the `localcloud` console and app set-up: the CloudKit Console's
/// schema, index, role, deploy and reset pages. Package-level: apps use CloudKit's API.
extension Container {
    /// The schema of this container's environment.
    package func schema() throws -> Schema {
        let store = try core.store()
        return try store.read { db in try SchemaStorage.load(db).schema }
    }

    /// Changes the schema in one transaction and rebuilds the SQL indexes it calls for
    /// (building new ones for the records already stored).
    ///
    /// In production only role membership can change here; everything else comes by ``deploySchema()``.
    ///
    /// - Returns: the schema after the change.
    @discardableResult
    package func updateSchema(_ change: (inout Schema) throws -> Void) throws -> Schema {
        let store = try core.store()
        let environment = configuration.environment
        let checksIndexes = configuration.checksIndexes
        return try store.write { db in
            let current = try SchemaStorage.load(db).schema
            var next = current
            try change(&next)
            if environment == .production && !next.sameDefinition(as: current) {
                throw CloudError(.invalidArguments, "The production schema changes only by deploying from development (localcloud deploy)")
            }
            guard next != current else { return (current, commit: false) }
            try SchemaStorage.save(next, db, rebuildingSearch: checksIndexes)
            return (next, commit: true)
        }
    }

    /// Merges a text schema into the development schema: new types and fields are added,
    /// the file's index flags and grants replace those of the types it names, and its roles are added.
    ///
    /// - Throws: `CloudError(.invalidArguments)` when a field's type differs, or in production.
    @discardableResult
    package func importSchema(_ imported: Schema) throws -> Schema {
        guard configuration.environment == .development else {
            throw CloudError(.invalidArguments, "Schema import works on development only; deploy to reach production")
        }
        return try updateSchema { schema in
            schema = try schema.merging(imported)
        }
    }

    /// Deploys this (development) container's schema to production.
    ///
    /// - Returns: the production schema before and after.
    /// - Throws: `CloudError(.invalidArguments)` for a destructive change, or when called on production.
    package func deploySchema() throws -> (before: Schema, after: Schema) {
        guard configuration.environment == .development else {
            throw CloudError(.invalidArguments, "Deploy copies development to production; run it with --environment development")
        }
        let development = try schema()
        var productionConfiguration = configuration
        productionConfiguration.environment = .production
        let production = Container(configuration: productionConfiguration)
        let store = try production.core.store()
        return try store.write { db in
            let before = try SchemaStorage.load(db).schema
            let after = try development.deploying(to: before)
            guard after != before else { return ((before, after), commit: false) }
            try SchemaStorage.save(after, db)
            return ((before, after), commit: true)
        }
    }

    /// Wipes the development environment: records, zones, change history, the schema and asset files.
    package func resetDevelopment() throws {
        guard configuration.environment == .development else {
            throw CloudError(.permissionFailure, "Only the development environment can be reset")
        }
        let store = try core.store()
        try store.write { db in
            let tables = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'table'")
            let virtual = tables.compactMap { row -> String? in
                let sql: String = row["sql"] ?? ""
                return sql.uppercased().hasPrefix("CREATE VIRTUAL TABLE") ? row["name"] : nil
            }
            for row in tables {
                let name: String = row["name"]
                if name.hasPrefix("sqlite_") || name.hasPrefix("grdb_") { continue }
                // Shadow tables of FTS5 and R-tree tables are emptied through their virtual table.
                if virtual.contains(where: { name != $0 && name.hasPrefix($0 + "_") }) { continue }
                try db.execute(sql: "DELETE FROM \"\(name.replacingOccurrences(of: "\"", with: "\"\""))\"")
            }
            try SchemaIndexes.synchronize(with: Schema(), db)
            return ((), commit: true)
        }
        let assets = configuration.assetsDirectory
        for item in (try? FileManager.default.contentsOfDirectory(at: assets, includingPropertiesForKeys: nil)) ?? [] {
            try? FileManager.default.removeItem(at: item)
        }
    }

    /// Counts and sizes for `localcloud status`.
    package func statistics() throws -> ContainerStatistics {
        let store = try core.store()
        var statistics = ContainerStatistics(
            dataDirectory: configuration.dataDirectory.path, databaseFile: configuration.databaseURL.path,
            assetsDirectory: configuration.assetsDirectory.path)
        try store.read { db in
            statistics.schemaVersion = try SchemaStorage.load(db).schema.version
            for row in try Row.fetchAll(db, sql: "SELECT scope, record_type, COUNT(*) FROM records GROUP BY scope, record_type ORDER BY scope, record_type") {
                let scope = Database.Scope(rawValue: row[0]).map(\.description) ?? "scope \(row[0] as Int)"
                statistics.recordCounts.append((scope, row[1], row[2]))
            }
            statistics.zoneCount = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM zones") ?? 0
        }
        let files = FileManager.default
        for suffix in ["", "-wal", "-shm"] {
            let attributes = try? files.attributesOfItem(atPath: configuration.databaseURL.path + suffix)
            statistics.databaseBytes += (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        }
        if let walker = files.enumerator(at: configuration.assetsDirectory, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey]) {
            for case let url as URL in walker {
                let values = try? url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
                guard values?.isRegularFile == true else { continue }
                statistics.assetCount += 1
                statistics.assetBytes += Int64(values?.fileSize ?? 0)
            }
        }
        return statistics
    }
}

extension Container {
    /// Every record of the given types in one zone of a database, read directly (no query
    /// indexes needed), oldest first: what `localcloud records export` writes out.
    ///
    /// The private database gives the current user's records only.
    package func allRecords(in scope: Database.Scope, zone: RecordZone.ID = .default, types: [String]? = nil) throws -> [Record] {
        let store = try core.store()
        let context = core.context(scope)
        if scope != .public && context.user == nil {
            throw CloudError(.notAuthenticated, "No account: the \(scope) database needs a signed-in user")
        }
        return try store.read { db in
            var sql = "SELECT \(SQLQueryPlan.recordColumns) FROM records r WHERE r.scope = ? AND r.owner = ? AND r.zone = ?"
            var arguments: [any DatabaseValueConvertible] = [scope.rawValue, context.owner, zone.zoneName]
            if let types {
                sql += " AND r.record_type IN (\(Array(repeating: "?", count: types.count).joined(separator: ", ")))"
                arguments += types as [any DatabaseValueConvertible]
            }
            sql += " ORDER BY r.created_at, r.id"
            return try store.records(db.makeStatement(sql: sql), arguments: StatementArguments(arguments))
        }
    }
}
