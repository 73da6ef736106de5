import Foundation
import GRDB

/// Change tokens on the change log the store writes in every transaction.
package protocol ChangeLogStore: Sendable {
    func recordZoneChanges(in zoneID: RecordZone.ID, since token: ServerChangeToken?, desiredKeys: [String]?,
                           limit: Int, context: StoreContext) async throws -> ZoneChangesPage
    func databaseChanges(since token: ServerChangeToken?, limit: Int, context: StoreContext) async throws -> DatabaseChangesPage
    func compactChangeLog(throughSequence: Int64?, olderThan: Date?) async throws -> Int
    func currentChangeToken() async throws -> ServerChangeToken
}

extension SQLiteStore: ChangeLogStore {
    struct ChangeLogMeta {
        var epoch: String
        var floor: Int64

        static func read(_ db: GRDB.Database) throws -> ChangeLogMeta {
            let epoch = try String.fetchOne(db, sql: "SELECT value FROM change_log_meta WHERE key = 'epoch'") ?? ""
            let floor = try Int64.fetchOne(db, sql: "SELECT value FROM change_log_meta WHERE key = 'floor'") ?? 0
            return ChangeLogMeta(epoch: epoch, floor: floor)
        }

        /// - Throws: `changeTokenExpired` for a token from another file or older than a compaction.
        func check(_ token: ServerChangeToken?) throws {
            try token?.check(epoch: epoch, floor: floor)
        }
    }

    /// The highest sequence ever written (AUTOINCREMENT keeps it even when the log is emptied).
    static func lastSequence(_ db: GRDB.Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'change_log'") ?? 0
    }

    /// A zone's current records after a row ID, for a first fetch: a rowid range scan (the unary
    /// plus keeps SQLite off the name index, which would need a sort).
    static let zoneSnapshotSQL = """
        SELECT id, record_name, record_type FROM records
        WHERE +scope = ? AND +owner = ? AND +zone = ? AND id > ? ORDER BY id LIMIT ?
        """

    /// A zone's log rows after a sequence: a range of the `change_log_by_zone` index.
    static let zoneChangesSQL = """
        SELECT seq, record_name, record_type, kind, parent FROM change_log
        WHERE scope = ? AND owner = ? AND zone = ? AND seq > ? ORDER BY seq LIMIT 500
        """

    func currentChangeToken() async throws -> ServerChangeToken {
        try await read { db in
            ServerChangeToken(epoch: try ChangeLogMeta.read(db).epoch, sequence: try Self.lastSequence(db))
        }
    }

    func recordZoneChanges(in zoneID: RecordZone.ID, since token: ServerChangeToken?, desiredKeys: [String]?,
                           limit: Int, context: StoreContext) async throws -> ZoneChangesPage {
        let limit = max(1, limit)
        let (pending, nextToken, moreComing): ([ZoneChangeCollector.Change], ServerChangeToken, Bool) = try await read { [self] db in
            let meta = try ChangeLogMeta.read(db)
            try meta.check(token)
            try requireZone(zoneID, context: context, db: db)
            let zone = zoneID.zoneName
            if token == nil || token?.snapshotAfterRowID != nil {
                // First fetch: the zone's current records by row ID (a rowid range scan; the unary
                // plus keeps SQLite off the name index), then the log after where the snapshot began.
                let base = try token.map(\.sequence) ?? Self.lastSequence(db)
                let rows = try Row.fetchAll(db, sql: Self.zoneSnapshotSQL, arguments: [context.scope.rawValue, context.owner, zone, token?.snapshotAfterRowID ?? 0, limit + 1])
                let page = rows.prefix(limit)
                let items = page.map { row -> ZoneChangeCollector.Change in
                    let name: String = row[1]
                    let type: String = row[2]
                    return ZoneChangeCollector.Change(name: name, type: type, deleted: false)
                }
                if rows.count > limit, let last = page.last {
                    return (items, ServerChangeToken(epoch: meta.epoch, sequence: base, snapshotAfterRowID: last[0]), true)
                }
                let more = try Bool.fetchOne(db, sql: "SELECT 1 FROM change_log WHERE scope = ? AND owner = ? AND zone = ? AND seq > ? LIMIT 1",
                                             arguments: [context.scope.rawValue, context.owner, zone, base]) ?? false
                return (items, ServerChangeToken(epoch: meta.epoch, sequence: base), more)
            }
            var collector = ZoneChangeCollector(limit: limit, after: token?.sequence ?? 0)
            let statement = try db.cachedStatement(sql: Self.zoneChangesSQL)
            scan: while true {
                let rows = try Row.fetchAll(statement, arguments: [context.scope.rawValue, context.owner, zone, collector.consumed])
                for row in rows {
                    let sequence: Int64 = row[0]
                    let name: String = row[1]
                    let type: String = row[2]
                    let kind: String = row[3]
                    let parent: String? = row[4]
                    guard collector.add(sequence: sequence, name: name, type: type, kind: kind, parent: parent) else { break scan }
                }
                if rows.count < 500 { break }
            }
            return (collector.changes, ServerChangeToken(epoch: meta.epoch, sequence: collector.consumed), collector.moreComing)
        }
        return try await zoneChangesPage(pending, in: zoneID, token: nextToken, moreComing: moreComing, desiredKeys: desiredKeys, context: context)
    }

    func databaseChanges(since token: ServerChangeToken?, limit: Int, context: StoreContext) async throws -> DatabaseChangesPage {
        let limit = max(1, limit)
        return try await read { db in
            let meta = try ChangeLogMeta.read(db)
            try meta.check(token)
            let existing = Set(try String.fetchAll(db, sql: "SELECT zone_name FROM zones WHERE scope = ? AND owner = ?",
                                                   arguments: [context.scope.rawValue, context.owner]) + [RecordZone.ID.defaultZoneName])
            guard let token, token.snapshotAfterRowID == nil else {
                let zones = existing.sorted().map { RecordZone.ID(zoneName: $0) }
                return DatabaseChangesPage(changedZones: zones, token: ServerChangeToken(epoch: meta.epoch, sequence: try Self.lastSequence(db)),
                                           moreComing: false)
            }
            var collector = DatabaseChangesPage.Collector(limit: limit, after: token.sequence)
            let statement = try db.cachedStatement(sql: """
                SELECT seq, zone FROM change_log WHERE scope = ? AND owner = ? AND seq > ? ORDER BY seq LIMIT 500
                """)
            scan: while true {
                let rows = try Row.fetchAll(statement, arguments: [context.scope.rawValue, context.owner, collector.consumed])
                for row in rows {
                    let sequence: Int64 = row[0]
                    let zone: String = row[1]
                    guard collector.add(sequence: sequence, zone: zone) else { break scan }
                }
                if rows.count < 500 { break }
            }
            return collector.page(epoch: meta.epoch, existing: existing)
        }
    }

    func compactChangeLog(throughSequence: Int64?, olderThan: Date?) async throws -> Int {
        try await write { db in
            var upTo = throughSequence ?? 0
            if let olderThan {
                upTo = max(upTo, try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM change_log WHERE at < ?",
                                                     arguments: [olderThan.timeIntervalSince1970]) ?? 0)
            }
            guard upTo > 0 else { return (0, commit: false) }
            try db.execute(sql: "DELETE FROM change_log WHERE seq <= ?", arguments: [upTo])
            let removed = db.changesCount
            try db.execute(sql: "UPDATE change_log_meta SET value = max(value, ?) WHERE key = 'floor'", arguments: [upTo])
            return (removed, commit: true)
        }
    }
}
