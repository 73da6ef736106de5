import Foundation
import GRDB

extension SQLiteStore {
    /// Problems with the stored data, empty when it is consistent; tests call this after
    /// concurrent writers and crashes.
    ///
    /// Checks SQLite's own integrity and foreign keys, that every full-text row belongs to a
    /// record, that each list side table holds exactly its field's elements, and that every
    /// asset a record uses exists as a file.
    func invariantViolations() async throws -> [String] {
        try await read { [self] db in
            var problems: [String] = []
            let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            if integrity != ["ok"] { problems += integrity.map { "integrity: \($0)" } }
            let foreignKeys = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
            if !foreignKeys.isEmpty { problems.append("\(foreignKeys.count) foreign key violations") }
            let strayText = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM records_fts WHERE rowid NOT IN (SELECT id FROM records)") ?? 0
            if strayText > 0 { problems.append("\(strayText) full-text rows without a record") }
            for field in try SchemaIndexes.listIndexes(db) where FieldName.isValid(field) {
                // The side table holds exactly the distinct elements of the field's lists.
                let elements = """
                    SELECT e.value, r.id FROM records r, json_each(r.fields, '\(FieldName.valuePath(field))') e
                    WHERE json_extract(r.fields, '$."\(field)".t') = 'list' AND e.value IS NOT NULL
                    """
                let table = SchemaIndexes.listTableName(field)
                let extra = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (SELECT value, id FROM \(table) EXCEPT \(elements))") ?? 0
                let missing = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(elements) EXCEPT SELECT value, id FROM \(table))") ?? 0
                if extra + missing > 0 { problems.append("list index \(field): \(extra) stray and \(missing) missing elements") }
            }
            for digest in try String.fetchAll(db, sql: "SELECT DISTINCT digest FROM record_assets") {
                let path = assetURL(forDigest: digest)?.path ?? ""
                if !FileManager.default.fileExists(atPath: path) { problems.append("missing asset file \(digest)") }
            }
            return problems
        }
    }
}
