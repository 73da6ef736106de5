import Foundation
import GRDB
import Synchronization

/// Saves and deletes a remote container made while its server could not be reached, kept in
/// `<cache>/outbox.sqlite` (with their assets in the cache) until they upload, in order.
///
/// Each row keeps what the upload needs to resolve a conflict the way the caller asked: the save
/// policy, the record's change tag when it was queued (an update's, or a delete's read from the
/// cache), and, once the server refused it, its reason and the server's copy.
///
/// Each row leaves the outbox only once the server acknowledged it, so a crash mid-upload sends
/// it again: a create of a record name the server already has with the same content means the
/// earlier attempt landed (record names are chosen by the client), and a delete of a record
/// already gone answers NOT_FOUND. A refusal or a conflict the policy does not settle stays in
/// the outbox, to be shown, never dropped.
final class Outbox: Sendable {
    /// One queued change.
    struct Item: Sendable {
        enum Kind: String, Sendable {
            /// A save of a record the caller had not read from the server (no change tag).
            case create
            /// A save of a record read from the server: its change tag is the version it changes.
            case update
            case delete
        }
        var sequence: Int64
        var scope: Database.Scope
        var kind: Kind
        var recordID: Record.ID
        /// For a save: the record as the wire sends it (all fields, or the changed ones for
        /// `changedKeys`), assets left out.
        var record: JSONValue?
        /// For a save: each asset field's content digest in the cache.
        var assets: [String: String]
        /// For a save: how it treats the server's copy.
        var rule = SaveRule(policy: .ifServerRecordUnchanged)
        /// The version the change was made against (an update's, a delete's); `nil`: any version.
        var changeTag: String?
        /// Why the server refused it, once it did.
        var failure: String?
        /// When the refusal was a conflict: the server's copy, as the wire sent it.
        var serverRecord: JSONValue?
        /// When it was queued, on the server's clock as best known (``ServerClock/now()``).
        var queued: Date
    }

    private let queue: DatabaseQueue
    /// Whose changes this outbox sends ("" without an account): users may share a data directory,
    /// and each change goes up with its own user's credentials.
    private let user: String

    init(fileURL: URL, user: String?) throws {
        self.user = user ?? ""
        queue = try Self.openDatabase(fileURL, migrations: ["""
            CREATE TABLE outbox (
                sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                scope INTEGER NOT NULL,
                kind TEXT NOT NULL,
                recordName TEXT NOT NULL,
                zone TEXT NOT NULL,
                record TEXT,
                assets TEXT NOT NULL,
                failure TEXT,
                queued REAL NOT NULL
            )
            """, """
            ALTER TABLE outbox ADD COLUMN policy INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE outbox ADD COLUMN replacesFields INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE outbox ADD COLUMN changeTag TEXT;
            ALTER TABLE outbox ADD COLUMN serverRecord TEXT;
            -- Rows from before this column belong to whoever opens the outbox (NULL).
            ALTER TABLE outbox ADD COLUMN user TEXT;
            """])
    }

    /// A small SQLite file of the remote store's (the outbox, the response cache), migrated with
    /// `migrations` (registered as v1, v2, … in order); several processes may open it (each waits
    /// up to 5 s for a writer).
    ///
    /// Both are in WAL mode, so a process reading (the screen listing what waits) never holds up
    /// one writing (the uploader).
    /// - Parameter durable: whether each commit waits for the disk. The outbox does (a change the
    ///   store answered "saved" must survive a power cut); the cache need not (a cut loses at most
    ///   the last answers, which the next read fetches again), so that a save or a notification
    ///   does not wait for an fsync.
    static func openDatabase(_ fileURL: URL, migrations: [String], durable: Bool = true) throws -> DatabaseQueue {
        var configuration = GRDB.Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: durable ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
        }
        let queue = try DatabaseQueue(path: fileURL.path, configuration: configuration)
        var migrator = DatabaseMigrator()
        for (index, sql) in migrations.enumerated() {
            migrator.registerMigration("v\(index + 1)") { db in try db.execute(sql: sql) }
        }
        try migrator.migrate(queue)
        return queue
    }

    /// Adds changes at the end, in one transaction.
    func append(_ items: [Item]) throws {
        try queue.write { db in
            for item in items {
                let assets = JSONValue.object(item.assets.mapValues(JSONValue.string))
                try db.execute(sql: """
                    INSERT INTO outbox (scope, kind, recordName, zone, record, assets, queued, policy, replacesFields, changeTag, user)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [item.scope.rawValue, item.kind.rawValue, item.recordID.recordName,
                                     String(decoding: item.recordID.zoneID.webServicesJSON.bytes, as: UTF8.self),
                                     item.record.map { String(decoding: $0.bytes, as: UTF8.self) },
                                     String(decoding: assets.bytes, as: UTF8.self), item.queued.timeIntervalSince1970,
                                     item.rule.policy.rawValue, item.rule.replacesFields, item.changeTag, user])
            }
        }
    }

    /// This user's queued changes, oldest first, refused ones included (every user's with `allUsers`).
    func items(allUsers: Bool = false) throws -> [Item] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM outbox WHERE ? OR user IS NULL OR user = ? ORDER BY sequence",
                             arguments: [allUsers, user]).compactMap(Self.item)
        }
    }

    /// This user's oldest change not refused yet.
    func next() throws -> Item? {
        try queue.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM outbox WHERE failure IS NULL AND (user IS NULL OR user = ?) ORDER BY sequence LIMIT 1",
                             arguments: [user]).flatMap(Self.item)
        }
    }

    func remove(_ sequence: Int64) throws {
        try queue.write { db in try db.execute(sql: "DELETE FROM outbox WHERE sequence = ?", arguments: [sequence]) }
    }

    /// Keeps a change the server refused, with the reason (and, for a conflict, the server's copy).
    func markFailed(_ sequence: Int64, reason: String, serverRecord: JSONValue? = nil) throws {
        try queue.write { db in
            try db.execute(sql: "UPDATE outbox SET failure = ?, serverRecord = ? WHERE sequence = ?",
                           arguments: [reason, serverRecord.map { String(decoding: $0.bytes, as: UTF8.self) }, sequence])
        }
    }

    private static func item(_ row: Row) -> Item? {
        guard let scope = Database.Scope(rawValue: row["scope"]), let kind = Item.Kind(rawValue: row["kind"]),
              let zoneText: String = row["zone"],
              let zone = try? RecordZone.ID(webServices: JSONValue.parse(Array(zoneText.utf8))) else { return nil }
        let record = (row["record"] as String?).flatMap { try? JSONValue.parse(Array($0.utf8)) }
        let assetsText: String = row["assets"] ?? "{}"
        let assets = ((try? JSONValue.parse(Array(assetsText.utf8)))?.objectValue ?? [:]).compactMapValues(\.stringValue)
        let rule = SaveRule(policy: ModifyRecordsOperation.RecordSavePolicy(rawValue: row["policy"]) ?? .ifServerRecordUnchanged,
                            replacesFields: row["replacesFields"])
        let serverRecord = (row["serverRecord"] as String?).flatMap { try? JSONValue.parse(Array($0.utf8)) }
        return Item(sequence: row["sequence"], scope: scope, kind: kind,
                    recordID: Record.ID(recordName: row["recordName"], zoneID: zone), record: record, assets: assets,
                    rule: rule, changeTag: row["changeTag"], failure: row["failure"], serverRecord: serverRecord,
                    queued: Date(timeIntervalSince1970: row["queued"]))
    }
}
