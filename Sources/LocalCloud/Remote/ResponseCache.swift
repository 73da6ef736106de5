import Foundation
import GRDB

/// What a remote container last read from its server, kept in `<cache>/cache.sqlite` so it can
/// answer while the server is away: the first page of each query and each looked-up record, as
/// the server's JSON, keyed by the request that read them (database, user, query or record,
/// desired keys). A newer answer to the same request replaces the older one.
final class ResponseCache: Sendable {
    private let queue: DatabaseQueue

    init(fileURL: URL) throws {
        queue = try Outbox.openDatabase(fileURL, schema: "CREATE TABLE entries (key TEXT PRIMARY KEY, value TEXT NOT NULL, stored REAL NOT NULL)")
    }

    func store(_ value: JSONValue, for key: JSONValue) throws {
        try queue.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO entries (key, value, stored) VALUES (?, ?, ?)",
                           arguments: [Self.text(key), Self.text(value), Date().timeIntervalSince1970])
        }
    }

    func value(for key: JSONValue) throws -> JSONValue? {
        let text = try queue.read { db in try String.fetchOne(db, sql: "SELECT value FROM entries WHERE key = ?", arguments: [Self.text(key)]) }
        return try text.map { try JSONValue.parse(Array($0.utf8)) }
    }

    /// Sorted keys: the same request is the same key.
    private static func text(_ json: JSONValue) -> String {
        String(decoding: json.bytes, as: UTF8.self)
    }
}
