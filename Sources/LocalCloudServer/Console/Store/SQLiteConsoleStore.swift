import Foundation
import GRDB
import LocalCloud
import Synchronization

/// The console's administrators, sessions and audit log in `<dataDir>/console.sqlite` (WAL,
/// registered migrations), opened on first use. `localcloud admins` and a running server open
/// the same file, so an administrator removed on the command line is signed out at once.
package final class SQLiteConsoleStore: ConsoleStore {
    package let dataDirectory: URL
    private let opened = Mutex<DatabasePool?>(nil)

    package init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
    }

    package var fileURL: URL { dataDirectory.appendingPathComponent("console.sqlite") }

    private func pool() throws -> DatabasePool {
        try opened.withLock { opened in
            if let pool = opened { return pool }
            try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
            var config = Configuration()
            config.busyMode = .timeout(30)
            config.label = "LocalCloud console"
            config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
            let pool = try DatabasePool(path: fileURL.path, configuration: config)
            // The command line and a running server may create the file at once: migrate under a file lock.
            try FileLock.withExclusiveLock(fileURL.appendingPathExtension("migrate-lock"), mode: 0o600) {
                try Self.migrator.migrate(pool)
            }
            opened = pool
            return pool
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: administrators, sessions, audit log") { db in
            try db.execute(sql: """
                CREATE TABLE admin (
                    name TEXT PRIMARY KEY NOT NULL,
                    passwordHash TEXT NOT NULL,
                    created REAL NOT NULL
                );
                CREATE TABLE session (
                    digest TEXT PRIMARY KEY NOT NULL,
                    admin TEXT NOT NULL REFERENCES admin(name) ON DELETE CASCADE,
                    created REAL NOT NULL,
                    expires REAL NOT NULL,
                    ended REAL
                );
                CREATE TABLE audit (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    time REAL NOT NULL,
                    admin TEXT NOT NULL,
                    action TEXT NOT NULL,
                    detail TEXT NOT NULL
                );
                """)
        }
        return migrator
    }

    // MARK: Administrators

    package func insertAdmin(_ admin: ConsoleAdmin, passwordHash: String) async throws {
        do {
            try await pool().write { db in
                try db.execute(sql: "INSERT INTO admin (name, passwordHash, created) VALUES (?, ?, ?)",
                               arguments: [admin.name, passwordHash, admin.created.timeIntervalSince1970])
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw CloudError(.constraintViolation, "Administrator '\(admin.name)' exists already")
        }
    }

    package func admins() async throws -> [ConsoleAdmin] {
        try await pool().read { db in
            try Row.fetchAll(db, sql: "SELECT name, created FROM admin ORDER BY name").map { row in
                ConsoleAdmin(name: row["name"], created: Date(timeIntervalSince1970: row["created"]))
            }
        }
    }

    package func adminPasswordHash(_ name: String) async throws -> String? {
        try await pool().read { db in
            try String.fetchOne(db, sql: "SELECT passwordHash FROM admin WHERE name = ?", arguments: [name])
        }
    }

    package func deleteAdmin(_ name: String) async throws -> Bool {
        try await pool().write { db in
            try db.execute(sql: "DELETE FROM session WHERE admin = ?", arguments: [name])
            try db.execute(sql: "DELETE FROM admin WHERE name = ?", arguments: [name])
            return db.changesCount > 0
        }
    }

    // MARK: Sessions

    package func insertSession(_ session: ConsoleSession) async throws {
        try await pool().write { db in
            // Sessions expired for a day are of no use: drop them as new ones arrive.
            try db.execute(sql: "DELETE FROM session WHERE expires < ?", arguments: [session.created.timeIntervalSince1970 - 86_400])
            try db.execute(sql: "INSERT INTO session (digest, admin, created, expires, ended) VALUES (?, ?, ?, ?, ?)",
                           arguments: [session.digest, session.admin, session.created.timeIntervalSince1970,
                                       session.expires.timeIntervalSince1970, session.ended?.timeIntervalSince1970])
        }
    }

    /// Every console page looks its session up: kept while `console.sqlite` is unchanged, as the
    /// authenticator's token lookups are (a sign-out or an admin's removal is a commit, which ends it).
    private let sessionCache = IdentityLookupCache<ConsoleSession>()

    package func session(digest: String) async throws -> ConsoleSession? {
        let stamp = IdentityLookupCache<ConsoleSession>.stamp(fileURL)
        if let stamp, let session = sessionCache.row(digest, stamp: stamp) { return session }
        let session = try await pool().read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM session WHERE digest = ?", arguments: [digest]).map { row in
                ConsoleSession(digest: row["digest"], admin: row["admin"], created: Date(timeIntervalSince1970: row["created"]),
                               expires: Date(timeIntervalSince1970: row["expires"]),
                               ended: (row["ended"] as Double?).map(Date.init(timeIntervalSince1970:)))
            }
        }
        if let stamp, let session { sessionCache.store(digest, stamp: stamp, row: session) }
        return session
    }

    package func endSession(digest: String, at date: Date) async throws {
        try await pool().write { db in
            try db.execute(sql: "UPDATE session SET ended = ? WHERE digest = ? AND ended IS NULL",
                           arguments: [date.timeIntervalSince1970, digest])
        }
    }

    // MARK: Audit log

    package func appendAudit(_ entry: AuditEntry) async throws {
        try await pool().write { db in
            try db.execute(sql: "INSERT INTO audit (time, admin, action, detail) VALUES (?, ?, ?, ?)",
                           arguments: [entry.time.timeIntervalSince1970, entry.admin, entry.action, entry.detail])
        }
    }

    package func auditEntries(limit: Int) async throws -> [AuditEntry] {
        try await pool().read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM audit ORDER BY id DESC LIMIT ?", arguments: [limit]).map { row in
                AuditEntry(time: Date(timeIntervalSince1970: row["time"]), admin: row["admin"], action: row["action"],
                           detail: row["detail"])
            }
        }
    }
}
