import Foundation
import GRDB

extension SQLiteStore: SchemaStore {
    func loadSchema() async throws -> Schema {
        try await read { db in try SchemaStorage.load(db).schema }
    }

    func updateSchema(rebuildingSearch: Bool, _ change: @escaping @Sendable (Schema) throws -> Schema?) async throws -> Schema {
        try await write { db in
            let current = try SchemaStorage.load(db).schema
            guard let next = try change(current), next != current else { return (current, commit: false) }
            try SchemaStorage.save(next, db, rebuildingSearch: rebuildingSearch)
            return (next, commit: true)
        }
    }

    func resetAll() async throws {
        try await write { db in
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
        for item in (try? FileManager.default.contentsOfDirectory(at: assetsDirectory, includingPropertiesForKeys: nil)) ?? [] {
            try? FileManager.default.removeItem(at: item)
        }
    }

    func statistics() async throws -> ContainerStatistics {
        let empty = ContainerStatistics(
            dataDirectory: fileURL.deletingLastPathComponent().deletingLastPathComponent().path,
            databaseFile: fileURL.path, assetsDirectory: assetsDirectory.path)
        var statistics = try await read { db in
            var statistics = empty
            statistics.schemaVersion = try SchemaStorage.load(db).schema.version
            for row in try Row.fetchAll(db, sql: "SELECT scope, record_type, COUNT(*) FROM records GROUP BY scope, record_type ORDER BY scope, record_type") {
                let scope = Database.Scope(rawValue: row[0]).map(\.description) ?? "scope \(row[0] as Int)"
                statistics.recordCounts.append((scope, row[1], row[2]))
            }
            statistics.zoneCount = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM zones") ?? 0
            return statistics
        }
        let files = FileManager.default
        for suffix in ["", "-wal", "-shm"] {
            let attributes = try? files.attributesOfItem(atPath: fileURL.path + suffix)
            statistics.databaseBytes += (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        }
        if let walker = files.enumerator(at: assetsDirectory, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey]) {
            for case let url as URL in walker {
                let values = try? url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
                guard values?.isRegularFile == true else { continue }
                statistics.assetCount += 1
                statistics.assetBytes += Int64(values?.fileSize ?? 0)
            }
        }
        return statistics
    }

    func allRecords(zone: RecordZone.ID, types: [String]?, context: StoreContext) async throws -> [Record] {
        try await read { [self] db in
            var sql = "SELECT \(SQLQueryPlan.recordColumns) FROM records r WHERE r.scope = ? AND r.owner = ? AND r.zone = ?"
            var arguments: [any DatabaseValueConvertible] = [context.scope.rawValue, context.owner, zone.zoneName]
            if let types {
                sql += " AND r.record_type IN (\(Array(repeating: "?", count: types.count).joined(separator: ", ")))"
                arguments += types as [any DatabaseValueConvertible]
            }
            sql += " ORDER BY r.created_at, r.id"
            return try records(db.makeStatement(sql: sql), arguments: StatementArguments(arguments))
        }
    }
}
