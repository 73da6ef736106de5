import Foundation
import GRDB

/// A broad full-text search sorted newest first, answered from the newest records' row IDs.
///
/// Walking `records_by_type_created` with the match list (``SQLQueryPlan/compile(_:context:locationIndexes:largeTextMatch:)``)
/// still has SQLite build the list of every match first: about 20 ms when a word is in all of
/// 100,000 records. Records are mostly added in creation order, so the newest records of a type
/// mostly have the highest row IDs. This asks the full-text index only for row IDs at or above the
/// lowest row ID of the newest ``window`` records (after the cursor), and then proves the page
/// right: no record between the cursor and the page's last row has a lower row ID than that
/// floor. If the proof fails, or the window held too few matches, the caller runs the full plan.
extension SQLiteStore {
    /// How many of the newest records bound the row IDs asked of the full-text index.
    static let textWindow = 2048

    /// Whether a request can use the window: one sort key, the creation date, descending.
    static func canUseTextWindow(_ request: QueryRequest) -> Bool {
        guard request.sort.count == 1, let key = request.sort.first, !key.ascending, key.location == nil,
              QuerySQL.systemColumn(forSortKey: key.key) == "r.created_at" else { return false }
        if let anchor = request.anchor {
            guard anchor.values.count == 1, anchor.values[0] != .null else { return false }
        }
        return request.predicate.hasTextSearch
    }

    /// The zone and type prefix and the keyset after the cursor, for `records r`.
    private static func windowConditions(_ request: QueryRequest, context: StoreContext) -> SQLFragment {
        var where_ = SQLFragment(SQLiteDialect.zoneAndType,
                                 [.integer(Int64(context.scope.rawValue)), .text(context.owner), .text(request.zoneID.zoneName),
                                  .text(request.recordType)])
        if let anchor = request.anchor {
            where_.sql += " AND (r.created_at, r.id) < (?, ?)"
            where_.arguments += [anchor.values[0].sqlValue, .integer(anchor.rowID)]
        }
        return where_
    }

    /// The lowest row ID among the newest ``textWindow`` records after the cursor.
    static func textWindowFloor(_ request: QueryRequest, context: StoreContext, db: GRDB.Database) throws -> Int64? {
        let conditions = windowConditions(request, context: context)
        return try Int64.fetchOne(db, sql: """
            SELECT min(id) FROM (SELECT r.id FROM records r INDEXED BY records_by_type_created WHERE \(conditions.sql)
            ORDER BY r.created_at DESC, r.id DESC LIMIT \(textWindow))
            """, arguments: conditions.statementArguments)
    }

    /// The plan with its full-text match limited to row IDs at or above `floor` (an integer we
    /// read, written into the SQL; the statement is not cached, since the floor changes).
    static func windowed(_ plan: SQLQueryPlan, floor: Int64) -> SQLQueryPlan? {
        let match = "records_fts WHERE records_fts MATCH ?)"
        guard plan.sql.components(separatedBy: match).count == 2 else { return nil }
        var windowed = plan
        windowed.sql = plan.sql.replacingOccurrences(of: match, with: "records_fts WHERE records_fts MATCH ? AND rowid >= \(floor))")
        return windowed
    }

    /// Whether a record after the cursor and before the row (`createdAt`, `rowID`) has a row ID
    /// below `floor`: if so, the window may have missed a match, and the page is not proved.
    static func textWindowMissed(_ request: QueryRequest, context: StoreContext, floor: Int64,
                                 before createdAt: DatabaseValue, rowID: Int64, db: GRDB.Database) throws -> Bool {
        var conditions = windowConditions(request, context: context)
        conditions.sql += " AND (r.created_at, r.id) > (?, ?) AND r.id < ?"
        conditions.arguments += [SQLValue(createdAt), .integer(rowID), .integer(floor)]
        return try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM records r INDEXED BY records_by_type_created WHERE \(conditions.sql))
            """, arguments: conditions.statementArguments) ?? true
    }
}
