import LocalCloud
import PostgresNIO

/// The change-log rows of one transaction, written together just before COMMIT.
///
/// PostgreSQL hands out `bigserial` values at insert time, but transactions commit in any order:
/// a reader that saw sequence 12 could later find 11 appear. So the rows are inserted last, under
/// a transaction-scoped advisory lock held until COMMIT: sequences become visible in order, and
/// "everything after my last sequence" never misses a row. Only the log insert and the commit
/// are serialized, not the rest of the transaction. The same transaction sends a NOTIFY with the
/// last sequence, which PostgreSQL delivers on commit to every node listening.
struct ChangeLogBatch {
    let schema: String
    let context: StoreContext
    private var rows: [(zone: String, name: String, type: String, kind: String, at: Double)] = []
    /// Rows at the end of each committed item, so a failed item's rows can be dropped.
    private var itemEnds: [Int] = [0]

    init(schema: String, context: StoreContext) {
        self.schema = schema
        self.context = context
    }

    mutating func append(zone: String, name: String, type: String, kind: String, at: Double) {
        rows.append((zone, name, type, kind, at))
    }

    /// Item `count` finished: its rows stay.
    mutating func markItem(_ count: Int) {
        while itemEnds.count <= count { itemEnds.append(rows.count) }
    }

    /// Drops the rows of the item after the first `count` items (it was rolled back to its savepoint).
    mutating func rollBack(to count: Int) {
        let end = count < itemEnds.count ? itemEnds[count] : itemEnds.last ?? 0
        rows.removeSubrange(end...)
    }

    /// The advisory lock that orders change-log writes: "LCLOG" in ASCII.
    static let lockKey: Int64 = 0x4C_434C_4F47

    func write(connection: PostgresConnection, logger: Logger) async throws {
        guard !rows.isEmpty else { return }
        // The log lock first (the INSERT reads its row), then the rows: sequence numbers are taken
        // under the lock, so they commit in order. One round trip.
        var statement = PostgresStatement("WITH log_lock AS (SELECT pg_advisory_xact_lock(\(Self.lockKey))), ")
        statement.sql += "logged AS (INSERT INTO \(schema).change_log "
        statement.sql += "(scope, owner, zone, record_name, record_type, kind, at, modified_by) SELECT "
        statement.sql += "\(statement.bind(context.scope.rawValue)), \(statement.bind(context.owner)), unnest(\(statement.bind(rows.map(\.zone)))), "
        statement.sql += "unnest(\(statement.bind(rows.map(\.name)))), unnest(\(statement.bind(rows.map(\.type)))), "
        statement.sql += "unnest(\(statement.bind(rows.map(\.kind)))), unnest(\(statement.bind(rows.map(\.at)))), \(statement.bind(context.userRecordName))"
        statement.sql += " FROM log_lock RETURNING seq) SELECT pg_notify(\(statement.bind(schema)), max(seq)::text) FROM logged"
        _ = try await connection.rows(statement, logger: logger)
    }
}
