import Foundation
import LocalCloud
import PostgresNIO

extension PostgresStore {
    /// - Throws: `changeTokenExpired` for a token from another database or older than a compaction.
    private func check(_ token: ServerChangeToken?, floor: Int64) throws {
        try token?.check(epoch: epoch, floor: floor)
    }

    /// The compaction floor and the last sequence ever written (kept across compactions by the floor).
    private func logPosition(_ connection: PostgresConnection, logger: Logger) async throws -> (floor: Int64, last: Int64) {
        let rows = try await connection.rows(PostgresStatement("""
            SELECT (SELECT value::bigint FROM \(schema).change_log_meta WHERE key = 'floor'),
                   (SELECT coalesce(max(seq), 0) FROM \(schema).change_log)
            """), logger: logger)
        guard let row = rows.first else { return (0, 0) }
        let (floor, last) = try row.decode((Int64, Int64).self)
        return (floor, max(floor, last))
    }

    package func currentChangeToken() async throws -> ServerChangeToken {
        ServerChangeToken(epoch: epoch, sequence: try await call { _ in try await self.changeLogEnd() })
    }

    /// The last sequence ever written, for async callers (change readers): suspends, never blocks.
    func changeLogEnd() async throws -> Int64 {
        let logger = pool.logger
        return try await pool.withConnection { try await self.logPosition($0, logger: logger).last }
    }

    package func recordZoneChanges(in zoneID: RecordZone.ID, since token: ServerChangeToken?, desiredKeys: [String]?,
                                   limit: Int, context: StoreContext) async throws -> ZoneChangesPage {
        let limit = max(1, limit)
        let epoch = epoch
        let (pending, nextToken, moreComing): ([ZoneChangeCollector.Change], ServerChangeToken, Bool) = try await call { pool in
            // One snapshot for the position and the rows read after it.
            try await pool.transaction(isolation: "REPEATABLE READ READ ONLY") { connection in
                let logger = pool.logger
                let position = try await self.logPosition(connection, logger: logger)
                try self.check(token, floor: position.floor)
                try await self.requireZone(zoneID, context: context, connection: connection, logger: logger)
                let zone = zoneID.zoneName
                if token == nil || token?.snapshotAfterRowID != nil {
                    // First fetch: the zone's current records by id, then the log after where the snapshot began.
                    let base = token?.sequence ?? position.last
                    var snapshot = PostgresStatement("SELECT id, record_name, record_type FROM \(self.schema).records WHERE ")
                    snapshot.sql += "scope = \(snapshot.bind(context.scope.rawValue)) AND owner = \(snapshot.bind(context.owner))"
                    snapshot.sql += " AND zone = \(snapshot.bind(zone)) AND id > \(snapshot.bind(token?.snapshotAfterRowID ?? 0))"
                    snapshot.sql += " ORDER BY id LIMIT \(snapshot.bind(limit + 1))"
                    let rows = try await connection.rows(snapshot, logger: logger)
                    var items: [ZoneChangeCollector.Change] = []
                    var lastID: Int64 = 0
                    for row in rows.prefix(limit) {
                        let (id, name, type) = try row.decode((Int64, String, String).self)
                        items.append(ZoneChangeCollector.Change(name: name, type: type, deleted: false))
                        lastID = id
                    }
                    if rows.count > limit {
                        return (items, ServerChangeToken(epoch: epoch, sequence: base, snapshotAfterRowID: lastID), true)
                    }
                    var more = PostgresStatement("SELECT 1 FROM \(self.schema).change_log WHERE ")
                    more.sql += "scope = \(more.bind(context.scope.rawValue)) AND owner = \(more.bind(context.owner))"
                    more.sql += " AND zone = \(more.bind(zone)) AND seq > \(more.bind(base)) LIMIT 1"
                    let hasMore = try await !connection.rows(more, logger: logger).isEmpty
                    return (items, ServerChangeToken(epoch: epoch, sequence: base), hasMore)
                }
                var collector = ZoneChangeCollector(limit: limit, after: token?.sequence ?? 0)
                scan: while true {
                    var changes = PostgresStatement("SELECT seq, record_name, record_type, kind, parent FROM \(self.schema).change_log WHERE ")
                    changes.sql += "scope = \(changes.bind(context.scope.rawValue)) AND owner = \(changes.bind(context.owner))"
                    changes.sql += " AND zone = \(changes.bind(zone)) AND seq > \(changes.bind(collector.consumed)) ORDER BY seq LIMIT 500"
                    let rows = try await connection.rows(changes, logger: logger)
                    for row in rows {
                        let (seq, name, type, kind, parent) = try row.decode((Int64, String, String, String, String?).self)
                        guard collector.add(sequence: seq, name: name, type: type, kind: kind, parent: parent) else { break scan }
                    }
                    if rows.count < 500 { break }
                }
                return (collector.changes, ServerChangeToken(epoch: epoch, sequence: collector.consumed), collector.moreComing)
            }
        }
        return try await zoneChangesPage(pending, in: zoneID, token: nextToken, moreComing: moreComing, desiredKeys: desiredKeys, context: context)
    }

    package func databaseChanges(since token: ServerChangeToken?, limit: Int, context: StoreContext) async throws -> DatabaseChangesPage {
        let limit = max(1, limit)
        let epoch = epoch
        return try await call { pool in
            try await pool.transaction(isolation: "REPEATABLE READ READ ONLY") { connection in
                let logger = pool.logger
                let position = try await self.logPosition(connection, logger: logger)
                try self.check(token, floor: position.floor)
                var zones = PostgresStatement("SELECT zone_name FROM \(self.schema).zones WHERE ")
                zones.sql += "scope = \(zones.bind(context.scope.rawValue)) AND owner = \(zones.bind(context.owner))"
                let existing = Set(try await connection.rows(zones, logger: logger).map { try $0.decode(String.self) } + [RecordZone.ID.defaultZoneName])
                guard let token, token.snapshotAfterRowID == nil else {
                    return DatabaseChangesPage(changedZones: existing.sorted().map { RecordZone.ID(zoneName: $0) },
                                               token: ServerChangeToken(epoch: epoch, sequence: position.last), moreComing: false)
                }
                var collector = DatabaseChangesPage.Collector(limit: limit, after: token.sequence)
                scan: while true {
                    var changes = PostgresStatement("SELECT seq, zone FROM \(self.schema).change_log WHERE ")
                    changes.sql += "scope = \(changes.bind(context.scope.rawValue)) AND owner = \(changes.bind(context.owner))"
                    changes.sql += " AND seq > \(changes.bind(collector.consumed)) ORDER BY seq LIMIT 500"
                    let rows = try await connection.rows(changes, logger: logger)
                    for row in rows {
                        let (seq, zone) = try row.decode((Int64, String).self)
                        guard collector.add(sequence: seq, zone: zone) else { break scan }
                    }
                    if rows.count < 500 { break }
                }
                return collector.page(epoch: epoch, existing: existing)
            }
        }
    }

    package func compactChangeLog(throughSequence: Int64?, olderThan: Date?) async throws -> Int {
        try await write { connection in
            let logger = self.pool.logger
            var upTo = throughSequence ?? 0
            if let olderThan {
                var oldest = PostgresStatement("SELECT coalesce(max(seq), 0) FROM \(self.schema).change_log WHERE at < ")
                oldest.sql += oldest.bind(olderThan.timeIntervalSince1970)
                if let row = try await connection.rows(oldest, logger: logger).first {
                    upTo = max(upTo, try row.decode(Int64.self))
                }
            }
            guard upTo > 0 else { return 0 }
            var remove = PostgresStatement("DELETE FROM \(self.schema).change_log WHERE seq <= ")
            remove.sql += remove.bind(upTo)
            let removed = try await connection.execute(remove, logger: logger)
            var floor = PostgresStatement("UPDATE \(self.schema).change_log_meta SET value = greatest(value::bigint, ")
            floor.sql += "\(floor.bind(upTo)))::text WHERE key = 'floor'"
            _ = try await connection.execute(floor, logger: logger)
            return removed
        }
    }
}
