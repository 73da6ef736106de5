import Foundation
import GRDB

/// A query compiled for SQLite (``QueryCompiler`` with ``SQLiteDialect``) and ready to run:
/// the statement, its arguments, the fields to decode and how many sort values follow them.
package struct SQLQueryPlan {
    var sql: String
    var arguments: StatementArguments
    /// The fields decoded from the fields column: the desired keys, or `nil` for all of them.
    var fieldKeys: [String]?
    /// Columns `s0…` after the fields: the sort values for the next cursor.
    var sortColumnCount: Int

    /// The columns every record is read from (``RecordRowReader``). The last is the whole fields
    /// JSON, which ``FieldsJSON`` decodes for the desired keys only.
    static let recordColumns =
        "r.id, r.record_name, r.record_type, r.zone, r.created_at, r.modified_at, r.created_by, r.modified_by, r.change_tag, r.fields"
    /// How many ``recordColumns`` there are: the sort values `s0…` follow them.
    static let recordColumnCount = 10

    /// - Parameters:
    ///   - locationIndexes: location fields with an R-tree (``SchemaIndexes``), which a distance filter uses.
    ///   - listIndexes: list fields with a side table of their elements (``SchemaIndexes``), which list matches use.
    ///   - fewListMatches: a list match names few rows (``listMatchesFewRows(_:listIndexes:_:)``),
    ///     or an equality filter does (``fieldMatchesFewRows(_:context:_:)``), so the plan should
    ///     start from them, as from a full-text match.
    ///   - largeTextMatch: the full-text match names many rows (``textMatchIsLarge(_:_:)``): walk the
    ///     sort index in order and test each record against the match, stopping after one page,
    ///     instead of looking every match up and sorting them all.
    static func compile(_ request: QueryRequest, context: StoreContext, locationIndexes: Set<String> = [],
                        listIndexes: Set<String> = [], fewListMatches: Bool = false,
                        largeTextMatch: Bool = false) throws -> SQLQueryPlan {
        let compiler = QueryCompiler(dialect: SQLiteDialect(locationIndexes: locationIndexes, listIndexes: listIndexes))
        // A full-text match or a list of record names names few rows: SQLite should seek those
        // row IDs and sort them, not walk an index in sort order testing every record of the type
        // (its choice when the keyset or the ORDER BY fits an index). A broad full-text match
        // pages down the sort index instead (``largeTextMatch``).
        let startsFromRowSet = (request.predicate.hasRowSetConjunct && !largeTextMatch) || fewListMatches
        let compiled = try compiler.compile(request, context: context, startsFromRowSet: startsFromRowSet)
        return SQLQueryPlan(sql: compiled.text.sql, arguments: compiled.text.statementArguments,
                            fieldKeys: compiled.fieldKeys, sortColumnCount: compiled.sortKinds.count)
    }

    /// A predicate alone, as a condition on `records r` (subscriptions test one changed row with it).
    static func compile(_ node: PredicateNode) throws -> SQLFragment {
        try QueryCompiler(dialect: SQLiteDialect()).predicate(node)
    }

    // MARK: Planning probes

    /// The tests on a list's elements a list match makes, all of which must find an element;
    /// `nil` for a match that can find nothing (`ANY … IN {}`), and for any other node.
    static func elementTests(_ node: PredicateNode, _ dialect: SQLiteDialect) throws -> (field: String, tests: [(String) -> SQLFragment])? {
        switch node {
        case let .listContains(key, value):
            let name = try QuerySQL.listFieldName(key)
            return (name, try dialect.equalTests(name, [value]))
        case let .listContainsAny(key, values):
            guard !values.isEmpty else { return nil }
            let name = try QuerySQL.listFieldName(key)
            return (name, [try dialect.oneOfTest(name, values)])
        case let .listContainsAll(key, values):
            let name = try QuerySQL.listFieldName(key)
            return (name, try dialect.equalTests(name, values))
        case let .listMemberBeginsWith(key, prefix):
            return (try QuerySQL.listFieldName(key), [SQLiteDialect.startsWithTest(prefix)])
        default:
            return nil
        }
    }

    /// At most this many side-table matches make a list match drive the plan.
    static let fewListMatchesLimit = 500

    /// Whether a list match the predicate ANDs in, answered by a side table, matches at most
    /// ``fewListMatchesLimit`` records (of any type or zone: a bound, counted up to the limit).
    ///
    /// Sorted by an indexed key, SQLite walks that index and probes the side table for each
    /// record: fast for a common tag, a walk of the whole type for a rare one (about 4 ms against
    /// 0.3 ms at 20,000 records). Starting from the matches and sorting them is the reverse
    /// (2–3 ms against 10–15 ms for a tag a third of the records have). Without statistics SQLite
    /// cannot tell the two apart; this probe can, reading at most a few hundred index entries.
    static func listMatchesFewRows(_ predicate: PredicateNode, listIndexes: Set<String>, _ db: GRDB.Database) throws -> Bool {
        let conjuncts: [PredicateNode] = if case .and(let nodes) = predicate { nodes } else { [predicate] }
        let dialect = SQLiteDialect(listIndexes: listIndexes)
        for conjunct in conjuncts {
            guard let (name, tests) = try elementTests(conjunct, dialect), listIndexes.contains(name) else { continue }
            for test in tests {
                let rows = SQLFragment("SELECT COUNT(*) FROM (SELECT 1 FROM \(SchemaIndexes.listTableName(name)) WHERE ")
                    + test("value") + SQLFragment(" LIMIT ?)", [.integer(Int64(fewListMatchesLimit + 1))])
                if try Int.fetchOne(db, sql: rows.sql, arguments: rows.statementArguments) ?? 0 <= fewListMatchesLimit { return true }
            }
        }
        return false
    }

    /// At most this many index entries make an equality filter drive a plan sorted on something else.
    static let fewFieldMatchesLimit = 500

    /// Whether `field == value`, ANDed into a query sorted first on another key, matches at most
    /// ``fewFieldMatchesLimit`` records of the type (counted in the field's index, up to the limit).
    ///
    /// Sorted by an indexed field, SQLite walks that index to skip the sort and tests the filter
    /// on every entry: 2–4 ms for a value 20,000 of 100,000 restaurants have, but 370–400 ms for
    /// one none has (`type == "Thai"` by `name`), a walk of the whole type. Seeking the filter's
    /// index and sorting the few matches is the reverse. SQLite has no statistics to tell them
    /// apart; this probe reads at most a few hundred index entries. A creation-date sort needs
    /// none: the field's `(…, field, created_at)` index answers both the filter and the order.
    static func fieldMatchesFewRows(_ request: QueryRequest, context: StoreContext, _ db: GRDB.Database) throws -> Bool {
        guard let first = request.sort.first, first.location == nil else { return false }
        let conjuncts: [PredicateNode] = if case .and(let nodes) = request.predicate { nodes } else { [request.predicate] }
        let equalities: [(String, FieldValue)] = conjuncts.compactMap {
            guard case let .comparison(.field(name), .equal, value) = $0, name != first.key, FieldName.isValid(name) else { return nil }
            return (name, value)
        }
        guard !equalities.isEmpty else { return false }
        let indexes = try SchemaIndexes.fieldIndexNames(db)
        let byCreation = QuerySQL.systemColumn(forSortKey: first.key) == "r.created_at"
        let dialect = SQLiteDialect()
        for (name, value) in equalities where indexes.contains(SchemaIndexes.fieldIndexName(name)) {
            if byCreation && indexes.contains(SchemaIndexes.prefix + "fc_" + name) { continue }
            guard let bound = try? dialect.value(value, comparedWith: .field(name)) else { continue }
            let rows = SQLFragment("""
                SELECT count(*) FROM (SELECT 1 FROM records r WHERE \(dialect.zoneAndType) \
                AND \(dialect.field(name)) = ? LIMIT ?)
                """, [.integer(Int64(context.scope.rawValue)), .text(context.owner), .text(request.zoneID.zoneName),
                      .text(request.recordType), bound, .integer(Int64(fewFieldMatchesLimit + 1))])
            if try Int.fetchOne(db, sql: rows.sql, arguments: rows.statementArguments) ?? 0 <= fewFieldMatchesLimit { return true }
        }
        return false
    }

    /// Past this many full-text matches, walking the sort index in order (one page of it, about
    /// `limit × records ÷ matches` entries) beats looking each match up and sorting them all.
    static let largeTextMatchThreshold = 200

    /// Whether the request's full-text match names more than ``largeTextMatchThreshold`` rows,
    /// counted in the full-text index alone and only up to the threshold (so it costs little).
    static func textMatchIsLarge(_ request: QueryRequest, _ db: GRDB.Database) throws -> Bool {
        guard !request.sort.isEmpty, let match = request.predicate.firstFTSMatch else {
            return false
        }
        let count = try Int.fetchOne(db, sql: """
            SELECT count(*) FROM (SELECT rowid FROM records_fts WHERE records_fts MATCH ? LIMIT ?)
            """, arguments: [match, largeTextMatchThreshold]) ?? 0
        return count >= largeTextMatchThreshold
    }
}

extension PredicateNode {
    var hasTextSearch: Bool { firstFTSMatch != nil }

    /// The FTS5 query of its first full-text conjunct (`self CONTAINS` or `CONTAINS_AS_TYPED`).
    var firstFTSMatch: String? {
        switch self {
        case .textSearch(let text): SQLiteDialect.ftsQuery(.allWords(PredicateRules.words(in: text)))
        case .textSearchAsTyped(let text): SQLiteDialect.ftsQuery(.asTyped(TypedSearchTerms(text).terms))
        case .and(let nodes): nodes.lazy.compactMap(\.firstFTSMatch).first
        default: nil
        }
    }

    /// Whether the predicate is, or is an AND with, `field == value` (``SQLQueryPlan/fieldMatchesFewRows(_:context:_:)``).
    var hasFieldEquality: Bool {
        switch self {
        case .comparison(.field, .equal, _): true
        case .and(let nodes): nodes.contains { if case .comparison(.field, .equal, _) = $0 { true } else { false } }
        default: false
        }
    }

    /// Whether the predicate is, or is an AND with, a full-text match or `recordName IN {…}`:
    /// a short list of row IDs that every result must be in.
    var hasRowSetConjunct: Bool {
        switch self {
        case .textSearch, .textSearchAny, .textSearchAsTyped: true
        case .in(.recordName, let values): !values.isEmpty
        case .and(let nodes): nodes.contains { $0.hasRowSetConjunct }
        default: false
        }
    }
}

extension SQLFragment {
    /// The arguments for GRDB, built as `[(any DatabaseValueConvertible)?]`, the element type of
    /// its initializer: a plain existential array went through a forced array cast, and
    /// `[DatabaseValue]` through a key path GRDB's unspecialized initializer builds on every call.
    var statementArguments: StatementArguments {
        StatementArguments(arguments.map(\.databaseValueConvertible))
    }
}

extension SQLValue {
    var databaseValueConvertible: (any DatabaseValueConvertible)? {
        switch self {
        case .null: nil
        case .integer(let i): i
        case .real(let d): d
        case .text(let s), .json(let s): s
        }
    }

    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let i): self = .integer(i)
        case .double(let d): self = .real(d)
        case .string(let s): self = .text(s)
        case .blob(let b): self = .text(b.base64EncodedString())
        }
    }
}

extension SQLScalar {
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let i): self = .integer(i)
        case .double(let d): self = .real(d)
        case .string(let s): self = .text(s)
        case .blob(let b): self = .text(b.base64EncodedString())
        }
    }

    var sqlValue: SQLValue {
        switch self {
        case .null: .null
        case .integer(let i): .integer(i)
        case .real(let d): .real(d)
        case .text(let s): .text(s)
        }
    }
}
