import Foundation
import LocalCloud
import PostgresNIO

extension PostgresStore: SchemaStore {
    package func loadSchema() async throws -> Schema {
        try await currentSchema()
    }

    package func updateSchema(rebuildingSearch: Bool, _ change: @escaping @Sendable (Schema) throws -> Schema?) async throws -> Schema {
        // The change is computed from a snapshot; the transaction that saves it locks the schema
        // row first, so a concurrent node's change is either before or after, never lost.
        let current = try await call { pool in
            try await pool.withConnection { connection in try await self.lockedSchemaSnapshot(connection, logger: pool.logger) }
        }
        guard let next = try change(current) else { return current }
        let searchChanged = rebuildingSearch ? Self.typesWithNewSearch(from: current, to: next) : []
        let applied: Schema = try await write { connection in
            let logger = self.pool.logger
            let locked = try await self.lockedSchema(connection, logger: logger)
            // Another node changed the schema between the read and this transaction: the caller retries.
            guard locked == current else {
                throw CloudError(.serverRecordChanged, "The schema changed while this change was prepared; try again")
            }
            try await self.saveSchema(next, connection: connection, logger: logger)
            for type in searchChanged {
                try await self.rebuildSearch(type: type, schema: next, connection: connection, logger: logger)
            }
            return next
        }
        schemaCache.withLock { $0 = nil }
        schemaByChangeStamp.withLock { $0 = nil }
        return applied
    }

    private func lockedSchemaSnapshot(_ connection: PostgresConnection, logger: Logger) async throws -> Schema {
        try await currentSchema(connection, logger: logger)
    }

    /// Types whose SEARCHABLE fields differ: their full-text vectors hold other fields now.
    private static func typesWithNewSearch(from old: Schema, to new: Schema) -> [String] {
        new.sortedRecordTypes.compactMap { type in
            let before = old.recordTypes[type.name]?.fields.filter(\.isSearchable) ?? []
            return before == type.fields.filter(\.isSearchable) ? nil : type.name
        }
    }

    /// Recomputes the full-text vectors of a type's records from its searchable fields.
    func rebuildSearch(type: String, schema next: Schema, connection: PostgresConnection, logger: Logger) async throws {
        let searchable = Set(next.recordTypes[type]?.fields.filter(\.isSearchable).map(\.name) ?? [])
        var select = PostgresStatement("SELECT id, fields_text FROM \(schema).records WHERE record_type = ")
        select.sql += select.bind(type)
        for row in try await connection.rows(select, logger: logger) {
            let (id, json) = try row.decode((Int64, String).self)
            let fields = Self.decodeFields(json, keys: nil, cache: assetCache)
            var update = PostgresStatement("UPDATE \(schema).records SET search = ")
            update.sql += searchVector(Self.searchText(fields, searchable: checksIndexes ? searchable : nil), &update)
            update.sql += " WHERE id = \(update.bind(id))"
            _ = try await connection.execute(update, logger: logger)
        }
    }

    package func resetAll() async throws {
        try await write { connection in
            let logger = self.pool.logger
            for table in ["record_references", "record_assets", "records", "zones", "subscriptions", "change_log", "asset_chunks", "assets"] {
                _ = try await connection.rows(PostgresStatement("DELETE FROM \(self.schema).\(table)"), logger: logger)
            }
            _ = try await connection.execute(PostgresStatement("UPDATE \(self.schema).schema SET version = 0, stamp = '', body = NULL"), logger: logger)
            try await PostgresSchemaIndexes.synchronize(with: Schema(), in: self.schema, connection: connection, logger: logger)
        }
        schemaCache.withLock { $0 = nil }
        schemaByChangeStamp.withLock { $0 = nil }
        try? FileManager.default.removeItem(at: assetCache)
        try? FileManager.default.createDirectory(at: assetCache, withIntermediateDirectories: true)
    }

    package func statistics() async throws -> ContainerStatistics {
        var statistics = ContainerStatistics(dataDirectory: pool.url.description, databaseFile: "\(pool.url) schema \(schema)",
                                             assetsDirectory: "\(pool.url) schema \(schema) (asset_chunks)")
        statistics.schemaVersion = try await loadSchema().version
        let rows = try await call { pool in
            try await pool.rows("""
                SELECT 'r', scope::bigint, record_type, count(*) FROM \(self.schema).records GROUP BY scope, record_type
                UNION ALL SELECT 'z', 0, '', count(*) FROM \(self.schema).zones
                UNION ALL SELECT 'a', 0, '', count(*) FROM \(self.schema).assets
                UNION ALL SELECT 'b', 0, '', coalesce(sum(size), 0)::bigint FROM \(self.schema).assets
                UNION ALL SELECT 'd', 0, '', (SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
                    JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '\(self.schema)' AND c.relkind = 'r')
                ORDER BY 1, 2, 3
                """).map { try $0.decode((String, Int64, String, Int64).self) }
        }
        for (kind, scope, type, count) in rows {
            switch kind {
            case "r":
                let name = Database.Scope(rawValue: Int(scope)).map(\.description) ?? "scope \(scope)"
                statistics.recordCounts.append((name, type, Int(count)))
            case "z": statistics.zoneCount = Int(count)
            case "a": statistics.assetCount = Int(count)
            case "b": statistics.assetBytes = count
            default: statistics.databaseBytes = count
            }
        }
        return statistics
    }

    package func allRecords(zone: RecordZone.ID, types: [String]?, context: StoreContext) async throws -> [Record] {
        try AccessRules.checkAccount(writes: false, context: context)
        var statement = PostgresStatement("SELECT \(Self.recordColumns) FROM \(schema).records r WHERE ")
        statement.sql += "r.scope = \(statement.bind(context.scope.rawValue)) AND r.owner = \(statement.bind(context.owner))"
        statement.sql += " AND r.zone = \(statement.bind(zone.zoneName))"
        if let types { statement.sql += " AND r.record_type = ANY(\(statement.bind(types)))" }
        statement.sql += " ORDER BY r.created_at, r.id"
        let query = statement
        let records = try await call { pool in
            var reader = PostgresRowReader(keys: nil, assetCache: self.assetCache)
            return try await pool.rows(query.sql, query.binds).map { try reader.record($0) }
        }
        try await materializeAssets(in: records)
        return records
    }
}
