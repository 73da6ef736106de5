import Foundation
import GRDB

/// What a remote container last read from its server, kept in `<cache>/cache.sqlite` so it can
/// answer while the server is away: every query page read (the first ones by their query, later
/// ones by their continuation marker) and each looked-up record, as the server's JSON, keyed by
/// the request that read them (database, user, query or record, desired keys). A newer answer to
/// the same request replaces the older one.
///
/// The cache also keeps, per database, the server's change token it is current to. A catch-up
/// (``RemoteStore/catchUp()``) fetches the changes after it and applies them to every entry, so
/// rows deleted or changed on any page while the client was away are gone or new in the cache
/// too; the token moves only once they are applied, so a crash repeats the catch-up, never skips it.
/// And it counts the changes this machine made that the server has not pushed back yet (see
/// ``claimOwnChange(_:)``).
final class ResponseCache: Sendable {
    private let queue: DatabaseQueue
    /// What each entry is stamped with when stored.
    private let clock: WallClock

    init(fileURL: URL, clock: WallClock = .system) throws {
        self.clock = clock
        queue = try Outbox.openDatabase(fileURL, migrations: [
            "CREATE TABLE entries (key TEXT PRIMARY KEY, value TEXT NOT NULL, stored REAL NOT NULL)",
            """
            CREATE TABLE tokens (scope INTEGER PRIMARY KEY, token TEXT NOT NULL);
            CREATE TABLE own_changes (user TEXT NOT NULL, recordName TEXT NOT NULL, pending INTEGER NOT NULL,
                                      PRIMARY KEY (user, recordName));
            """,
        ], durable: false)
    }

    func store(_ value: JSONValue, for key: JSONValue) throws {
        try queue.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO entries (key, value, stored) VALUES (?, ?, ?)",
                           arguments: [Self.text(key), Self.text(value), clock.now.timeIntervalSince1970])
        }
    }

    func value(for key: JSONValue) throws -> JSONValue? {
        let text = try queue.read { db in try String.fetchOne(db, sql: "SELECT value FROM entries WHERE key = ?", arguments: [Self.text(key)]) }
        return try text.map { try JSONValue.parse(Array($0.utf8)) }
    }

    /// The newest cached copy of a record (looked up, or a row of a page), `nil` when none is.
    /// "Newest" is the last stored (a replaced entry gets a new row ID), not the wall clock's say.
    func cachedRecord(_ recordName: String, zone: JSONValue, scope: Database.Scope) throws -> JSONValue? {
        let zoneText = Self.text(zone)
        let needle = "%" + Self.text(.string(recordName)) + "%"
        return try queue.read { db in
            for row in try Row.fetchAll(db, sql: "SELECT key, value FROM entries WHERE value LIKE ? ORDER BY rowid DESC", arguments: [needle]) {
                let keyText: String = row["key"]
                let valueText: String = row["value"]
                guard let key = try? JSONValue.parse(Array(keyText.utf8)), key["scope"]?.int64Value == Int64(scope.rawValue),
                      let value = try? JSONValue.parse(Array(valueText.utf8)) else { continue }
                let isPage = key["kind"]?.stringValue == "page"
                guard let entryZone = isPage ? key.at("request", "zoneID") : key.at("request", "zone"), Self.text(entryZone) == zoneText else { continue }
                let candidates = isPage ? value["records"]?.arrayValue ?? [] : [value]
                if let found = candidates.first(where: { $0["recordName"]?.stringValue == recordName && $0["recordChangeTag"] != nil }) {
                    return found
                }
            }
            return nil
        }
    }

    /// Every record of `recordType` the cached pages of one database and user hold in `zone`,
    /// each once (its newest copy), newest stored first: what a search the server never
    /// answered is looked for in while the server is away.
    func cachedPageRecords(recordType: String, zone: JSONValue, scope: Database.Scope, user: String?) throws -> [JSONValue] {
        let zoneText = Self.text(zone)
        return try queue.read { db in
            var seen: Set<String> = []
            var records: [JSONValue] = []
            for row in try Row.fetchAll(db, sql: "SELECT key, value FROM entries ORDER BY rowid DESC") {
                let keyText: String = row["key"]
                guard let key = try? JSONValue.parse(Array(keyText.utf8)), key["kind"]?.stringValue == "page",
                      key["scope"]?.int64Value == Int64(scope.rawValue), key["user"]?.stringValue == user,
                      let entryZone = key.at("request", "zoneID"), Self.text(entryZone) == zoneText else { continue }
                let valueText: String = row["value"]
                guard let value = try? JSONValue.parse(Array(valueText.utf8)) else { continue }
                for record in value["records"]?.arrayValue ?? [] where record["recordType"]?.stringValue == recordType {
                    guard let name = record["recordName"]?.stringValue, record["recordChangeTag"] != nil,
                          seen.insert(name).inserted else { continue }
                    records.append(record)
                }
            }
            return records
        }
    }

    // MARK: Catching up

    /// The server's sync token the entries of `scope` are current to, `nil` before the first one.
    func changeToken(_ scope: Database.Scope) throws -> String? {
        try queue.read { db in try String.fetchOne(db, sql: "SELECT token FROM tokens WHERE scope = ?", arguments: [scope.rawValue]) }
    }

    /// Records a token only when the scope has none yet (the first page read sets it, before reading).
    func setChangeTokenIfAbsent(_ token: String, scope: Database.Scope) throws {
        try queue.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO tokens (scope, token) VALUES (?, ?)", arguments: [scope.rawValue, token])
        }
    }

    /// Forgets the token and the entries of `scope` (the server compacted its log past the token,
    /// so what changed since cannot be known): the next reads fill the cache again, and set a new token.
    func reset(_ scope: Database.Scope) throws {
        try queue.write { db in
            try db.execute(sql: "DELETE FROM tokens WHERE scope = ?", arguments: [scope.rawValue])
            for keyText in try String.fetchAll(db, sql: "SELECT key FROM entries") {
                guard let key = try? JSONValue.parse(Array(keyText.utf8)), key["scope"]?.int64Value == Int64(scope.rawValue) else { continue }
                try db.execute(sql: "DELETE FROM entries WHERE key = ?", arguments: [keyText])
            }
        }
    }

    /// What changed in one zone of a database since the cache's token.
    struct ZoneChanges {
        /// The zone as the wire names it (`{"zoneName": …, "ownerRecordName": …}`).
        var zone: JSONValue
        var deleted: Set<String> = []
        /// Each changed record as the server sends it now, every field.
        var modified: [String: JSONValue] = [:]
    }

    /// Applies changes to every entry of `scope` (pages lose deleted rows and get changed ones,
    /// restricted to the entry's desired keys; looked-up records are dropped or replaced), and
    /// then, in the same transaction, moves the scope's token to `token`.
    /// - Returns: how many entries changed.
    @discardableResult
    func apply(_ changes: [ZoneChanges], scope: Database.Scope, token: String) throws -> Int {
        let byZone = Dictionary(changes.map { (Self.text($0.zone), $0) }, uniquingKeysWith: { first, _ in first })
        // Only entries that name a changed record are read: a few changes touch a few entries.
        let names = Set(changes.flatMap { $0.deleted.union($0.modified.keys) })
        let needles = names.count <= Self.namesPerScan ? names.map { "%" + Self.text(.string($0)) + "%" } : nil
        return try queue.write { db in
            var changed = 0
            let rows: [Row]
            if names.isEmpty {
                rows = []
            } else if let needles {
                rows = try Row.fetchAll(db, sql: "SELECT key, value FROM entries WHERE "
                    + Array(repeating: "value LIKE ?", count: needles.count).joined(separator: " OR "), arguments: StatementArguments(needles))
            } else {
                rows = try Row.fetchAll(db, sql: "SELECT key, value FROM entries")
            }
            for row in rows {
                let keyText: String = row["key"]
                guard let key = try? JSONValue.parse(Array(keyText.utf8)), key["scope"]?.int64Value == Int64(scope.rawValue),
                      let request = key["request"] else { continue }
                let isPage = key["kind"]?.stringValue == "page"
                guard let zone = (isPage ? request["zoneID"] : request["zone"]), let zoneChanges = byZone[Self.text(zone)] else { continue }
                let desired = request["desiredKeys"]?.arrayValue.map { Set($0.compactMap(\.stringValue)) }
                let valueText: String = row["value"]
                guard let value = try? JSONValue.parse(Array(valueText.utf8)) else { continue }
                if isPage {
                    guard case .object(var page) = value, let items = page["records"]?.arrayValue else { continue }
                    var updated: [JSONValue] = []
                    var touched = false
                    for item in items {
                        guard let name = item["recordName"]?.stringValue else { updated.append(item); continue }
                        if zoneChanges.deleted.contains(name) {
                            touched = true
                        } else if let fresh = zoneChanges.modified[name] {
                            touched = true
                            updated.append(Self.restricted(fresh, to: desired))
                        } else {
                            updated.append(item)
                        }
                    }
                    guard touched else { continue }
                    page["records"] = .array(updated)
                    try db.execute(sql: "UPDATE entries SET value = ? WHERE key = ?", arguments: [Self.text(.object(page)), keyText])
                    changed += 1
                } else if let name = request["recordName"]?.stringValue {
                    if zoneChanges.deleted.contains(name) {
                        try db.execute(sql: "DELETE FROM entries WHERE key = ?", arguments: [keyText])
                        changed += 1
                    } else if let fresh = zoneChanges.modified[name] {
                        try db.execute(sql: "UPDATE entries SET value = ? WHERE key = ?",
                                       arguments: [Self.text(Self.restricted(fresh, to: desired)), keyText])
                        changed += 1
                    }
                }
            }
            try db.execute(sql: "INSERT OR REPLACE INTO tokens (scope, token) VALUES (?, ?)", arguments: [scope.rawValue, token])
            return changed
        }
    }

    /// Above this many changed records, a catch-up reads every entry rather than searching for each name.
    static let namesPerScan = 50

    /// A record's JSON with only the fields a request asked for (all of them for `nil`).
    private static func restricted(_ record: JSONValue, to keys: Set<String>?) -> JSONValue {
        guard let keys, case .object(var object) = record, let fields = object["fields"]?.objectValue else { return record }
        object["fields"] = .object(fields.filter { keys.contains($0.key) })
        return .object(object)
    }

    // MARK: Own changes

    /// Counts a change `user` is about to send for each record: its notification, when the server
    /// pushes it back, is that user's own. Shared by every process on this cache (a `foodpin add`
    /// and an open screen); kept per user, since users may share a data directory.
    func noteOwnChanges(_ recordNames: [String], user: String) throws {
        guard !recordNames.isEmpty else { return }
        try queue.write { db in
            for name in recordNames {
                try db.execute(sql: """
                    INSERT INTO own_changes (user, recordName, pending) VALUES (?, ?, 1)
                    ON CONFLICT(user, recordName) DO UPDATE SET pending = pending + 1
                    """, arguments: [user, name])
            }
        }
    }

    /// Takes back a counted change that did not happen (the server refused it).
    func forgetOwnChange(_ recordName: String, user: String) throws {
        try queue.write { db in try Self.decrement(recordName, user: user, db) }
    }

    /// Whether a pushed change to `recordName` is one `user` made from this cache: true (and the
    /// count goes down) when one is pending. Other people's changes only read.
    func claimOwnChange(_ recordName: String, user: String) throws -> Bool {
        let sql = "SELECT pending FROM own_changes WHERE user = ? AND recordName = ?"
        guard try queue.read({ db in try Int.fetchOne(db, sql: sql, arguments: [user, recordName]) ?? 0 }) > 0 else { return false }
        return try queue.write { db in
            guard (try Int.fetchOne(db, sql: sql, arguments: [user, recordName]) ?? 0) > 0 else { return false }
            try Self.decrement(recordName, user: user, db)
            return true
        }
    }

    private static func decrement(_ recordName: String, user: String, _ db: GRDB.Database) throws {
        try db.execute(sql: "UPDATE own_changes SET pending = pending - 1 WHERE user = ? AND recordName = ?", arguments: [user, recordName])
        try db.execute(sql: "DELETE FROM own_changes WHERE user = ? AND recordName = ? AND pending <= 0", arguments: [user, recordName])
    }

    /// Sorted keys: the same request is the same key.
    private static func text(_ json: JSONValue) -> String {
        String(decoding: json.bytes, as: UTF8.self)
    }
}
