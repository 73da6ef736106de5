import Foundation
import GRDB

extension SQLiteStore {
    /// Registers the change-token and subscription tables after the store's own migrations.
    ///
    /// - `change_log.modified_by`: who made each change, so a notification can say so.
    /// - `change_log_by_zone`: zone change fetches read one zone's rows after a sequence by range.
    /// - `change_log_meta`: the file's `epoch` (a random ID, so tokens from another file fail)
    ///   and `floor`, the highest sequence compaction removed (older tokens are expired).
    /// - `subscriptions`: every user's saved subscriptions, per database.
    static func registerChangeMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v2: change tokens and subscriptions") { db in
            try db.execute(sql: """
                ALTER TABLE change_log ADD COLUMN modified_by TEXT NOT NULL DEFAULT '';
                CREATE INDEX change_log_by_zone ON change_log (scope, owner, zone, seq);
                CREATE TABLE change_log_meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
                INSERT INTO change_log_meta (key, value) VALUES ('epoch', lower(hex(randomblob(8)))), ('floor', 0);
                CREATE TABLE subscriptions (
                    subscriber TEXT NOT NULL,
                    scope INTEGER NOT NULL,
                    subscription_id TEXT NOT NULL,
                    kind INTEGER NOT NULL,
                    record_type TEXT,
                    zone TEXT,
                    predicate TEXT,
                    options INTEGER NOT NULL DEFAULT 0,
                    notification_info TEXT,
                    created_at REAL NOT NULL,
                    PRIMARY KEY (subscriber, scope, subscription_id)
                ) WITHOUT ROWID;
                """)
        }
    }
}
