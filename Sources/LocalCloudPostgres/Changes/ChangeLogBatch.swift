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
        try await Self.write([self], connection: connection, logger: logger)
    }

    /// The rows of several writes that share one transaction (group commit), each with its own
    /// scope, owner and user, in one statement.
    static func write(_ batches: [ChangeLogBatch], connection: PostgresConnection, logger: Logger) async throws {
        let batches = batches.filter { !$0.rows.isEmpty }
        guard let schema = batches.first?.schema else { return }
        func column<T>(_ value: (ChangeLogBatch, (zone: String, name: String, type: String, kind: String, at: Double)) -> T) -> [T] {
            batches.flatMap { batch in batch.rows.map { value(batch, $0) } }
        }
        // The log lock first (the INSERT reads its row), then the rows: sequence numbers are taken
        // under the lock, so they commit in order. One round trip.
        var statement = PostgresStatement("WITH log_lock AS (SELECT pg_advisory_xact_lock(\(Self.lockKey))), ")
        statement.sql += "logged AS (INSERT INTO \(schema).change_log "
        statement.sql += "(scope, owner, zone, record_name, record_type, kind, at, modified_by) SELECT "
        statement.sql += "unnest(\(statement.bind(column { batch, _ in batch.context.scope.rawValue }))), "
        statement.sql += "unnest(\(statement.bind(column { batch, _ in batch.context.owner }))), "
        statement.sql += "unnest(\(statement.bind(column { $1.zone }))), unnest(\(statement.bind(column { $1.name }))), "
        statement.sql += "unnest(\(statement.bind(column { $1.type }))), unnest(\(statement.bind(column { $1.kind }))), "
        statement.sql += "unnest(\(statement.bind(column { $1.at }))), unnest(\(statement.bind(column { batch, _ in batch.context.userRecordName })))"
        statement.sql += " FROM log_lock RETURNING seq) SELECT pg_notify(\(statement.bind(schema)), max(seq)::text) FROM logged"
        _ = try await connection.rows(statement, logger: logger)
    }
}
