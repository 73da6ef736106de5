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

    /// The advisory lock that orders change-log writes: "LCLOG" in ASCII.
    static let lockKey: Int64 = 0x4C_434C_4F47

    func write(connection: PostgresConnection, logger: Logger) async throws {
        guard !rows.isEmpty else { return }
        try await connection.query(PostgresQuery(unsafeSQL: "SELECT pg_advisory_xact_lock(\(Self.lockKey))"), logger: logger)
        var statement = PostgresStatement("WITH logged AS (INSERT INTO \(schema).change_log ")
        statement.sql += "(scope, owner, zone, record_name, record_type, kind, at, modified_by, parent) SELECT "
        statement.sql += "\(statement.bind(context.scope.rawValue)), \(statement.bind(context.owner)), t.zone, t.name, t.type, t.kind, t.at, "
        statement.sql += "\(statement.bind(context.userRecordName)), CASE WHEN t.kind = 'deleted' THEN t.parent END FROM unnest("
        statement.sql += "\(statement.bind(rows.map(\.zone))), \(statement.bind(rows.map(\.name))), \(statement.bind(rows.map(\.type))), "
        statement.sql += "\(statement.bind(rows.map(\.kind))), \(statement.bind(rows.map(\.at))), \(statement.bind(rows.map(\.parent)))"
        statement.sql += ") WITH ORDINALITY AS t(zone, name, type, kind, at, parent, n) ORDER BY t.n"
        statement.sql += " RETURNING seq) SELECT pg_notify(\(statement.bind(schema)), max(seq)::text) FROM logged"
        _ = try await connection.rows(statement, logger: logger)
    }
}
