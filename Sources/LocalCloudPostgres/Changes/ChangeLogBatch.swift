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
    /// `parent`: a deleted record's parent name ("" for none); not written for other kinds.
    private var rows: [(zone: String, name: String, type: String, kind: String, at: Double, parent: String)] = []
    /// Rows at the end of each committed item, so a failed item's rows can be dropped.
    private var itemEnds: [Int] = [0]

    init(schema: String, context: StoreContext) {
        self.schema = schema
        self.context = context
    }

    mutating func append(zone: String, name: String, type: String, kind: String, at: Double, parent: String? = nil) {
        rows.append((zone, name, type, kind, at, parent ?? ""))
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

    /// The rest of a `WITH` whose `to_log` names the rows to log (scope, owner, zone, name, type,
    /// kind, at, modified_by, parent, n), in order of `n`: `log_lock`, `logged` and `notified`,
    /// the NOTIFY of the last sequence (no row when nothing was logged). The log lock comes first
    /// (the INSERT reads its row), so sequence numbers are taken under it and commit in order.
    /// One round trip.
    static func appendLogging(to statement: inout PostgresStatement, schema: String) {
        statement.sql += "log_lock AS (SELECT pg_advisory_xact_lock(\(Self.lockKey))), "
        statement.sql += "logged AS (INSERT INTO \(schema).change_log "
        statement.sql += "(scope, owner, zone, record_name, record_type, kind, at, modified_by, parent) SELECT "
        statement.sql += "t.scope, t.owner, t.zone, t.name, t.type, t.kind, t.at, t.modified_by, CASE WHEN t.kind = 'deleted' THEN t.parent END "
        statement.sql += "FROM log_lock, to_log t ORDER BY t.n RETURNING seq), "
        statement.sql += "notified AS (SELECT pg_notify(\(statement.bind(schema)), max(seq)::text) FROM logged HAVING count(*) > 0)"
    }

    /// The advisory lock that orders change-log writes: "LCLOG" in ASCII.
    static let lockKey: Int64 = 0x4C_434C_4F47

    func write(connection: PostgresConnection, logger: Logger) async throws {
        try await Self.write([self], connection: connection, logger: logger)
    }

    /// The rows of several writes that share one transaction (group commit), each with its own
    /// scope, owner and user, in one statement, in order.
    static func write(_ batches: [ChangeLogBatch], connection: PostgresConnection, logger: Logger) async throws {
        let batches = batches.filter { !$0.rows.isEmpty }
        guard let schema = batches.first?.schema else { return }
        typealias Row = (zone: String, name: String, type: String, kind: String, at: Double, parent: String)
        func column<T>(_ value: (ChangeLogBatch, Row) -> T) -> [T] {
            batches.flatMap { batch in batch.rows.map { value(batch, $0) } }
        }
        var statement = PostgresStatement("WITH to_log AS (SELECT * FROM unnest(")
        statement.sql += "\(statement.bind(column { batch, _ in batch.context.scope.rawValue })), "
        statement.sql += "\(statement.bind(column { batch, _ in batch.context.owner })), "
        statement.sql += "\(statement.bind(column { $1.zone })), \(statement.bind(column { $1.name })), \(statement.bind(column { $1.type })), "
        statement.sql += "\(statement.bind(column { $1.kind })), \(statement.bind(column { $1.at })), "
        statement.sql += "\(statement.bind(column { batch, _ in batch.context.userRecordName })), \(statement.bind(column { $1.parent }))"
        statement.sql += ") WITH ORDINALITY AS t(scope, owner, zone, name, type, kind, at, modified_by, parent, n)), "
        appendLogging(to: &statement, schema: schema)
        statement.sql += " SELECT 1 FROM notified"
        _ = try await connection.preparedRows(statement, logger: logger)
    }
}
