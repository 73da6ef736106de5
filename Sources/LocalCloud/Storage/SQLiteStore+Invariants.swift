import Foundation
import GRDB

extension SQLiteStore {
    /// Problems with the stored data, empty when it is consistent; tests call this after
    /// concurrent writers and crashes.
    ///
    /// Checks SQLite's own integrity and foreign keys, that every full-text row belongs to a
    /// record, and that every asset a record uses exists as a file.
    func invariantViolations() throws -> [String] {
        try read { db in
            var problems: [String] = []
            let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            if integrity != ["ok"] { problems += integrity.map { "integrity: \($0)" } }
            let foreignKeys = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
            if !foreignKeys.isEmpty { problems.append("\(foreignKeys.count) foreign key violations") }
            let strayText = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM records_fts WHERE rowid NOT IN (SELECT id FROM records)") ?? 0
            if strayText > 0 { problems.append("\(strayText) full-text rows without a record") }
            for digest in try String.fetchAll(db, sql: "SELECT DISTINCT digest FROM record_assets") {
                let path = assetURL(forDigest: digest)?.path ?? ""
                if !FileManager.default.fileExists(atPath: path) { problems.append("missing asset file \(digest)") }
            }
            return problems
        }
    }
}
