import Foundation
import GRDB
import LocalCloud

/// Where each push token's webcourier long-poll stopped, kept in `.push.sqlite` in the data
/// directory, so a restarted server (or another one over the same directory) neither repeats nor
/// skips notifications.
///
/// ```swift
/// let cursors = try WebcourierCursors(directory: dataDirectory)
/// try cursors.set(NotificationCursor(sequence: 42, delivered: 1), for: token)
/// try cursors.cursor(for: token)       // 42
/// ```
///
/// Rows are keyed by the SHA-256 of the token, never the token itself; rows not advanced for
/// 30 days are pruned when the file is opened.
final class WebcourierCursors: WebcourierCursorStore {
    private let queue: DatabaseQueue
    /// What each cursor's last use is stamped with, and the 30 days of retention measured by.
    private let clock: WallClock

    static let fileName = ".push.sqlite"
    static let retention: TimeInterval = 30 * 24 * 3600

    init(directory: URL, clock: WallClock = .system) throws {
        self.clock = clock
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        configuration.label = "LocalCloudServer.webcourier"
        queue = try DatabaseQueue(path: directory.appendingPathComponent(Self.fileName).path, configuration: configuration)
        try Self.migrator.migrate(queue)
        try queue.write { db in
            try db.execute(sql: "DELETE FROM webcourier_cursors WHERE updated_at < ?",
                           arguments: [clock.now.timeIntervalSince1970 - Self.retention])
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: webcourier cursors") { db in
            try db.execute(sql: """
                CREATE TABLE webcourier_cursors (
                    token_hash TEXT PRIMARY KEY,
                    cursor TEXT NOT NULL,
                    updated_at REAL NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        return migrator
    }

    func cursor(for token: String) throws -> NotificationCursor? {
        try queue.read { db in
            try String.fetchOne(db, sql: "SELECT cursor FROM webcourier_cursors WHERE token_hash = ?", arguments: [Self.hash(token)])
        }.flatMap(NotificationCursor.init(text:))
    }

    func set(_ cursor: NotificationCursor, for token: String) throws {
        try queue.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO webcourier_cursors (token_hash, cursor, updated_at) VALUES (?, ?, ?)",
                           arguments: [Self.hash(token), cursor.description, clock.now.timeIntervalSince1970])
        }
    }

    private static func hash(_ token: String) -> String {
        SHA256Hasher.hexDigest(of: token)
    }
}
