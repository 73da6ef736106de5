import Foundation
import GRDB
import Synchronization

/// Saves and deletes a remote container made while its server could not be reached, kept in
/// `<cache>/outbox.sqlite` (with their assets in the cache) until they upload, in order.
///
/// Each row leaves the outbox only once the server acknowledged it, so a crash mid-upload sends
/// it again: a create of a record name the server already has answers EXISTS, which means the
/// earlier attempt landed (record names are chosen by the client), and a delete of a record
/// already gone answers NOT_FOUND. Any other refusal stays in the outbox with its reason, to be
/// shown, never dropped.
final class Outbox: Sendable {
    /// One queued change.
    struct Item: Sendable {
        enum Kind: String, Sendable { case create, delete }
        var sequence: Int64
        var scope: Database.Scope
        var kind: Kind
        var recordID: Record.ID
        /// For a create: the record as the wire sends it, assets left out.
        var record: JSONValue?
        /// For a create: each asset field's content digest in the cache.
        var assets: [String: String]
        /// Why the server refused it, once it did.
        var failure: String?
        /// When it was queued.
        var queued = Date()
    }

    private let queue: DatabaseQueue

    init(fileURL: URL) throws {
        queue = try Self.openDatabase(fileURL, schema: """
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
            """)
    }

    /// A small SQLite file of the remote store's (the outbox, the response cache), its first
    /// migration `schema`; several processes may open it (each waits up to 5 s for a writer).
    static func openDatabase(_ fileURL: URL, schema: String) throws -> DatabaseQueue {
        var configuration = GRDB.Configuration()
        configuration.busyMode = .timeout(5)
        let queue = try DatabaseQueue(path: fileURL.path, configuration: configuration)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute(sql: schema) }
        try migrator.migrate(queue)
        return queue
    }

    /// Adds changes at the end, in one transaction.
    func append(_ items: [Item]) throws {
        try queue.write { db in
            for item in items {
                let assets = JSONValue.object(item.assets.mapValues(JSONValue.string))
                try db.execute(sql: """
                    INSERT INTO outbox (scope, kind, recordName, zone, record, assets, queued) VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [item.scope.rawValue, item.kind.rawValue, item.recordID.recordName,
                                     String(decoding: item.recordID.zoneID.webServicesJSON.bytes, as: UTF8.self),
                                     item.record.map { String(decoding: $0.bytes, as: UTF8.self) },
                                     String(decoding: assets.bytes, as: UTF8.self), Date().timeIntervalSince1970])
            }
        }
    }

    /// Every queued change, oldest first, refused ones included.
    func items() throws -> [Item] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM outbox ORDER BY sequence").compactMap(Self.item)
        }
    }

    /// The oldest change not refused yet.
    func next() throws -> Item? {
        try queue.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM outbox WHERE failure IS NULL ORDER BY sequence LIMIT 1").flatMap(Self.item)
        }
    }

    func remove(_ sequence: Int64) throws {
        try queue.write { db in try db.execute(sql: "DELETE FROM outbox WHERE sequence = ?", arguments: [sequence]) }
    }

    func markFailed(_ sequence: Int64, reason: String) throws {
        try queue.write { db in
            try db.execute(sql: "UPDATE outbox SET failure = ? WHERE sequence = ?", arguments: [reason, sequence])
        }
    }

    private static func item(_ row: Row) -> Item? {
        guard let scope = Database.Scope(rawValue: row["scope"]), let kind = Item.Kind(rawValue: row["kind"]),
              let zoneText: String = row["zone"],
              let zone = try? RecordZone.ID(webServices: JSONValue.parse(Array(zoneText.utf8))) else { return nil }
        let record = (row["record"] as String?).flatMap { try? JSONValue.parse(Array($0.utf8)) }
        let assetsText: String = row["assets"] ?? "{}"
        let assets = ((try? JSONValue.parse(Array(assetsText.utf8)))?.objectValue ?? [:]).compactMapValues(\.stringValue)
        return Item(sequence: row["sequence"], scope: scope, kind: kind,
                    recordID: Record.ID(recordName: row["recordName"], zoneID: zone), record: record, assets: assets,
                    failure: row["failure"], queued: Date(timeIntervalSince1970: row["queued"]))
    }
}
