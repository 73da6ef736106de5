import Foundation
import GRDB

/// A SQL fragment and the arguments bound to its `?` placeholders.
struct SQLFragment {
    var sql: String
    var arguments: [any DatabaseValueConvertible & Sendable]

    init(_ sql: String, _ arguments: [any DatabaseValueConvertible & Sendable] = []) {
        self.sql = sql
        self.arguments = arguments
    }

    static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
        SQLFragment(lhs.sql + rhs.sql, lhs.arguments + rhs.arguments)
    }

    static func += (lhs: inout SQLFragment, rhs: SQLFragment) {
        lhs.sql += rhs.sql
        lhs.arguments += rhs.arguments
    }

    static func joined(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        SQLFragment(parts.map(\.sql).joined(separator: separator), parts.flatMap(\.arguments))
    }
}

/// A query compiled to one SELECT: the zone and type prefix the index covers, the predicate,
/// the keyset condition after the cursor's anchor, the ORDER BY, and a LIMIT one past the page.
///
/// Values are only ever bound; field names (validated identifiers) appear as JSON paths.
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
    ///     so the plan should start from them, as from a full-text match.
    ///   - largeTextMatch: the full-text match names many rows (``textMatchIsLarge(_:_:)``): walk the
    ///     sort index in order and test each record against the match, stopping after one page,
    ///     instead of looking every match up and sorting them all.
    static func compile(_ request: QueryRequest, context: StoreContext, locationIndexes: Set<String> = [],
                        listIndexes: Set<String> = [], fewListMatches: Bool = false,
                        largeTextMatch: Bool = false) throws -> SQLQueryPlan {
        try FieldName.validate(request.recordType, what: "Record type")
        let sortExpressions = try request.sort.map { try sortExpression($0) }
        let tieAscending = request.sort.last?.ascending ?? true

        let fieldKeys = try fieldKeys(request.desiredKeys)
        // Built in place: joining fragments with `+` copied the text and the arguments at every step.
        var whole = SQLFragment("SELECT \(recordColumns)")
        whole.sql.reserveCapacity(512)
        whole.arguments.reserveCapacity(16)
        for (i, expression) in sortExpressions.enumerated() {
            whole.sql += ", "
            whole += expression
            whole.sql += " AS s\(i)"
        }
        let zoneArguments: [any DatabaseValueConvertible & Sendable] = [context.scope.rawValue, context.owner, request.zoneID.zoneName]
        // A full-text match with many rows pages down the sort index instead (``largeTextMatch``).
        let drivenByRowSet = (request.predicate.hasRowSetConjunct && !largeTextMatch) || fewListMatches
        whole.sql += " FROM records r"
        whole.sql += " WHERE (r.scope = ? AND r.owner = ? AND r.zone = ? AND r.record_type = ?)"
        whole.arguments += zoneArguments
        whole.arguments.append(request.recordType)
        let zone = SQLFragment("scope = ? AND owner = ? AND zone = ?", zoneArguments)
        let predicate = try compile(request.predicate, locationIndexes: locationIndexes, listIndexes: listIndexes, zone: zone)
        if predicate.sql != "1" {
            whole.sql += " AND ("
            whole += predicate
            whole.sql += ")"
        }
        // A full-text match or a list of record names names few rows: SQLite should seek those
        // row IDs and sort them, not walk an index in sort order testing every record of the type
        // (its choice when the keyset or the ORDER BY fits an index). A unary `+` keeps those
        // terms from steering the plan.
        if let anchor = request.anchor {
            whole.sql += drivenByRowSet ? " AND (+(" : " AND ("
            whole += try keyset(after: anchor, sort: request.sort, expressions: sortExpressions, tieAscending: tieAscending)
            whole.sql += drivenByRowSet ? "))" : ")"
        }
        // With no sort descriptors the order is by row ID alone: `records_by_type` (whose
        // entries end with the row ID) serves it, and an index on an equality-filtered field too.
        whole.sql += " ORDER BY "
        for (expression, key) in zip(sortExpressions, request.sort) {
            if drivenByRowSet { whole.sql += "+" }
            whole += expression
            whole.sql += key.ascending ? " ASC, " : " DESC, "
        }
        whole.sql += tieAscending ? "r.id ASC LIMIT ?" : "r.id DESC LIMIT ?"
        whole.arguments.append(request.limit + 1)
        // Built as `[(any DatabaseValueConvertible)?]`, the element type of GRDB's initializer:
        // a plain existential array went through a forced array cast, and `[DatabaseValue]`
        // through a key path GRDB's unspecialized initializer builds on every call.
        let arguments = whole.arguments.map { $0 as (any DatabaseValueConvertible)? }
        return SQLQueryPlan(sql: whole.sql, arguments: StatementArguments(arguments),
                            fieldKeys: fieldKeys, sortColumnCount: sortExpressions.count)
    }

    /// The fields to decode for `desiredKeys`: without the system keys and repeats, `nil` for all.
    ///
    /// The desired keys are picked out of the fields JSON in Swift, not in SQL: one
    /// `json_extract` for each key's kind and one for its value cost about a microsecond per row
    /// each, even when the path is absent (SQLite looks up its parse cache and walks the path).
    package static func fieldKeys(_ desiredKeys: [String]?) throws -> [String]? {
        guard let keys = desiredKeys else { return nil }
        var wanted: [String] = []
        for key in keys where !systemKeys.contains(key) && !wanted.contains(key) {
            try FieldName.validate(key, what: "Desired key")
            wanted.append(key)
        }
        return wanted
    }

    static let systemKeys: Set<String> = [
        "recordName", "recordID", "creationDate", "modificationDate", "creatorUserRecordID",
        "lastModifiedUserRecordID", "recordChangeTag", "createdTimestamp", "modifiedTimestamp",
    ]

    // MARK: Sorting and keysets

    /// The system column a sort key names, if any (always non-NULL).
    package static func systemColumn(forSortKey key: String) -> String? {
        switch key {
        case "creationDate", "createdTimestamp", "___createTime": "r.created_at"
        case "modificationDate", "modifiedTimestamp", "___modTime": "r.modified_at"
        case "recordName", "recordID", "___recordID": "r.record_name"
        case "creatorUserRecordID", "___createdBy": "r.created_by"
        case "lastModifiedUserRecordID", "___modifiedBy": "r.modified_by"
        default: nil
        }
    }

    static func sortExpression(_ key: QuerySortKey) throws -> SQLFragment {
        if let location = key.location {
            try FieldName.validate(key.key, what: "Sort key")
            return distanceExpression(field: key.key, from: location)
        }
        if let column = systemColumn(forSortKey: key.key) { return SQLFragment(column) }
        try FieldName.validate(key.key, what: "Sort key")
        return SQLFragment("json_extract(r.fields, '\(FieldName.valuePath(key.key))')")
    }

    static func distanceExpression(field: String, from location: Location) -> SQLFragment {
        let path = "$.\"\(field)\".v"
        return SQLFragment(
            "localcloud_distance_km(json_extract(r.fields, '\(path)[0]'), json_extract(r.fields, '\(path)[1]'), ?, ?)",
            [location.latitude, location.longitude])
    }

    /// Rows strictly after the anchor in sort order. When every key is a non-NULL system
    /// column sorted one way, a row-value comparison lets SQLite seek the index directly.
    static func keyset(after anchor: QueryAnchor, sort: [QuerySortKey], expressions: [SQLFragment],
                       tieAscending: Bool) throws -> SQLFragment {
        guard anchor.values.count == expressions.count else {
            throw CloudError(.invalidArguments, "The query cursor does not match its query")
        }
        let uniform = sort.allSatisfy { $0.ascending == tieAscending && $0.location == nil && systemColumn(forSortKey: $0.key) != nil }
        if uniform && !anchor.values.contains(.null) {
            // `(k1, k2, r.id) < (?, ?, ?)`
            var after = SQLFragment("(")
            for expression in expressions {
                after += expression
                after.sql += ", "
            }
            after.sql += tieAscending ? "r.id) > (" : "r.id) < ("
            after.sql += String(repeating: "?, ", count: expressions.count) + "?)"
            after.arguments += anchor.values.map(\.bindable)
            after.arguments.append(anchor.rowID)
            return after
        }
        // General form: (k1 after v1) OR (k1 = v1 AND k2 after v2) … OR (all equal AND id after anchor).
        // SQLite sorts NULL first ascending and last descending.
        var alternatives: [SQLFragment] = []
        var equalPrefix: [SQLFragment] = []
        for (i, expression) in expressions.enumerated() {
            let value = anchor.values[i]
            let ascending = sort[i].ascending
            let after: SQLFragment
            switch (value, ascending) {
            case (.null, true): after = expression + SQLFragment(" IS NOT NULL")
            case (.null, false): after = SQLFragment("0")
            case (_, true): after = expression + SQLFragment(" > ?", [value.bindable])
            case (_, false): after = SQLFragment("(") + expression + SQLFragment(" < ? OR ", [value.bindable]) + expression + SQLFragment(" IS NULL)")
            }
            alternatives.append(SQLFragment.joined(equalPrefix + [after], separator: " AND "))
            equalPrefix.append(value == .null ? expression + SQLFragment(" IS NULL") : expression + SQLFragment(" = ?", [value.bindable]))
        }
        let tie = SQLFragment(tieAscending ? "r.id > ?" : "r.id < ?", [anchor.rowID])
        alternatives.append(SQLFragment.joined(equalPrefix + [tie], separator: " AND "))
        return SQLFragment.joined(alternatives.map { SQLFragment("(") + $0 + SQLFragment(")") }, separator: " OR ")
    }

    // MARK: Predicates

    /// - Parameter zone: `scope = ? AND owner = ? AND zone = ?` for the query's zone. With it,
    ///   `recordName IN {…}` looks the names up in the unique key first (see ``recordNames(_:zone:)``).
    static func compile(_ node: PredicateNode, locationIndexes: Set<String> = [], listIndexes: Set<String> = [],
                        zone: SQLFragment? = nil) throws -> SQLFragment {
        switch node {
        case .truePredicate:
            return SQLFragment("1")
        case .falsePredicate:
            return SQLFragment("0")
        case .and(let nodes):
            guard !nodes.isEmpty else { return SQLFragment("1") }
            return SQLFragment.joined(try nodes.map {
                SQLFragment("(") + (try compile($0, locationIndexes: locationIndexes, listIndexes: listIndexes, zone: zone)) + SQLFragment(")")
            }, separator: " AND ")
        case .not(let inner):
            return SQLFragment("NOT (") + (try compile(inner, locationIndexes: locationIndexes, listIndexes: listIndexes, zone: zone)) + SQLFragment(")")
        case let .comparison(key, op, value):
            let sqlOperator = switch op {
            case .equal: "="
            case .notEqual: "!="
            case .less: "<"
            case .lessOrEqual: "<="
            case .greater: ">"
            case .greaterOrEqual: ">="
            }
            return (try keyExpression(key)) + SQLFragment(" \(sqlOperator) ?", [try bindable(value, for: key)])
        case let .between(key, lower, upper):
            return (try keyExpression(key)) + SQLFragment(" BETWEEN ? AND ?", [try bindable(lower, for: key), try bindable(upper, for: key)])
        case let .beginsWith(key, prefix):
            let expression = try keyExpression(key)
            guard !prefix.isEmpty else { return expression + SQLFragment(" IS NOT NULL") }
            return startsWith(expression, prefix)
        case let .in(key, values):
            guard !values.isEmpty else { return SQLFragment("0") }
            if key == .recordName, let zone {
                return recordNames(try values.map { try bindable($0, for: key) }, zone: zone)
            }
            let placeholders = Array(repeating: "?", count: values.count).joined(separator: ", ")
            return (try keyExpression(key)) + SQLFragment(" IN (\(placeholders))", try values.map { try bindable($0, for: key) })
        case .listContains, .listContainsAny, .listContainsAll, .listMemberBeginsWith:
            guard let (name, tests) = try elementTests(node) else { return SQLFragment("0") }
            guard !tests.isEmpty else { return SQLFragment("1") }
            return SQLFragment.joined(tests.map { listElement(of: name, indexed: listIndexes.contains(name), $0) }, separator: " AND ")
        case .textSearch(let text):
            guard let match = ftsQuery(PredicateRules.words(in: text), separator: " ") else { return SQLFragment("0") }
            return SQLFragment("r.id IN (SELECT rowid FROM records_fts WHERE records_fts MATCH ?)", [match])
        case .textSearchAny(let texts):
            guard let match = ftsQuery(texts.flatMap(PredicateRules.words(in:)), separator: " OR ") else { return SQLFragment("0") }
            return SQLFragment("r.id IN (SELECT rowid FROM records_fts WHERE records_fts MATCH ?)", [match])
        case .textSearchAsTyped(let text):
            guard let match = typedFTSQuery(text) else { return SQLFragment("0") }
            return SQLFragment("r.id IN (SELECT rowid FROM records_fts WHERE records_fts MATCH ?)", [match])
        case let .distance(key, location, op, kilometres):
            let (name, sqlOperator) = try PredicateRules.distanceComparison(key, op)
            let exact = distanceExpression(field: name, from: location) + SQLFragment(" \(sqlOperator) ?", [kilometres])
            if locationIndexes.contains(name), op == .less || op == .lessOrEqual {
                return SchemaIndexes.boundingBox(field: name, around: location, kilometres: kilometres) + SQLFragment(" AND ") + exact
            }
            return exact
        }
    }

    /// `recordName IN {…}` as `r.id IN (rows of the unique key with those names)`.
    ///
    /// Written plainly, SQLite prefers walking a type index in row-ID order (no sort step,
    /// and without statistics it takes the type prefix to be selective) and tests every row
    /// of the type: about 100 ms for 100,000 records. The subquery probes the unique key
    /// `(scope, owner, zone, record_name)` once per name, and the outer query then seeks each
    /// row ID in order, so the cost is the number of names.
    static func recordNames(_ names: [any DatabaseValueConvertible & Sendable], zone: SQLFragment) -> SQLFragment {
        let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
        return SQLFragment("r.id IN (SELECT id FROM records WHERE ") + zone
            + SQLFragment(" AND record_name IN (\(placeholders)))", names)
    }

    static func keyExpression(_ key: PredicateKey) throws -> SQLFragment {
        switch key {
        case .creationDate: SQLFragment("r.created_at")
        case .modificationDate: SQLFragment("r.modified_at")
        case .recordName: SQLFragment("r.record_name")
        case .creatorUserRecordID: SQLFragment("r.created_by")
        case .lastModifiedUserRecordID: SQLFragment("r.modified_by")
        case .field(let name):
            try { try FieldName.validate(name); return SQLFragment("json_extract(r.fields, '\(FieldName.valuePath(name))')") }()
        }
    }

    /// The SQL value a field value compares as: the same scalar the fields JSON stores under `v`.
    static func bindable(_ value: FieldValue, for key: PredicateKey) throws -> any DatabaseValueConvertible & Sendable {
        switch value {
        case .string(let s): return s
        case .int64(let i): return i
        case .double(let d): return d
        case .bool(let b): return b ? 1 : 0
        case .date(let d): return d.timeIntervalSince1970
        case .bytes(let d): return d.base64EncodedString()
        case .reference(let r): return r.recordID.recordName
        case .asset(let a):
            guard let digest = a.contentDigest else {
                throw CloudError(.invalidArguments, "Assets cannot be compared in a predicate")
            }
            return digest
        case .location:
            throw CloudError(.invalidArguments, "Locations can only be compared with distanceToLocation:fromLocation:")
        case .list:
            throw CloudError(.invalidArguments, "A list can only be the right-hand side of IN")
        }
    }

    /// A text search as an FTS5 query: each word quoted, joined by `separator` (`" "` requires
    /// every word, `" OR "` any of them); `nil` when there is no word. It reads the `body`
    /// column, the text as written, where a CJK word is one token as CloudKit's search has it.
    static func ftsQuery(_ words: [Substring], separator: String) -> String? {
        guard !words.isEmpty else { return nil }
        return "{body} : (" + words.map { ftsString($0) }.joined(separator: separator) + ")"
    }

    /// A search as you type as an FTS5 query over the `segmented` column (every CJK character a
    /// token): finished words whole, the word being typed as a prefix (`"de" *`, served by the
    /// table's prefix index), a CJK run as a phrase of its characters; `nil` when there is no word.
    package static func typedFTSQuery(_ text: String) -> String? {
        let terms = TypedSearchTerms(text).terms
        guard !terms.isEmpty else { return nil }
        return terms.map { term in
            switch term {
            case .word(let word): "segmented : " + ftsString(word[...])
            case .prefix(let prefix): "segmented : " + ftsString(prefix[...]) + " *"
            case .run(let characters): "segmented : " + ftsString(characters.joined(separator: " ")[...])
            }
        }.joined(separator: " AND ")
    }

    /// An FTS5 string: quoted, its quotes doubled, so it is only ever searched for.
    static func ftsString(_ text: Substring) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `expression` is a string starting with `prefix`. The range `[prefix, successor)` lets an
    /// index seek just the matching entries (with the lower bound alone it read on to the end
    /// of the index); substr keeps the test exact whatever the bounds.
    static func startsWith(_ expression: SQLFragment, _ prefix: String) -> SQLFragment {
        var test = expression + SQLFragment(" >= ?", [prefix])
        if let upper = prefixUpperBound(prefix) {
            test += SQLFragment(" AND ") + expression + SQLFragment(" < ?", [upper])
        }
        return test + SQLFragment(" AND substr(") + expression + SQLFragment(", 1, ?) = ?", [prefix.unicodeScalars.count, prefix])
    }

    /// The least string above every string that starts with `prefix`, in code-point order (which
    /// is SQLite's BINARY order of UTF-8): the last scalar that can grow, grown, with what
    /// followed it dropped. `nil` when there is none ("" or only U+10FFFF).
    package static func prefixUpperBound(_ prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            var next = last.value + 1
            if (0xD800...0xDFFF).contains(next) { next = 0xE000 }
            guard let grown = Unicode.Scalar(next) else { continue }
            scalars.append(grown)
            var bound = ""
            bound.unicodeScalars.append(contentsOf: scalars)
            return bound
        }
        return nil
    }

    /// The tests on a list's elements a list match makes, all of which must find an element:
    /// one for `CONTAINS`, `ANY … IN` and `ANY … BEGINSWITH`, one per value for `ALL … IN` (so
    /// duplicates, and values SQL deems equal such as 1 and 1.0, need no care). Each takes the
    /// element's SQL expression. `nil` for a match that can find nothing (`ANY … IN {}`), and
    /// for any other node.
    static func elementTests(_ node: PredicateNode) throws -> (field: String, tests: [(String) -> SQLFragment])? {
        switch node {
        case let .listContains(key, value):
            let bound = try bindable(value, for: key)
            return (try listFieldName(key), [{ SQLFragment("\($0) = ?", [bound]) }])
        case let .listContainsAny(key, values):
            guard !values.isEmpty else { return nil }
            let placeholders = Array(repeating: "?", count: values.count).joined(separator: ", ")
            let bound = try values.map { try bindable($0, for: key) }
            return (try listFieldName(key), [{ SQLFragment("\($0) IN (\(placeholders))", bound) }])
        case let .listContainsAll(key, values):
            let tests = try values.map { value -> (String) -> SQLFragment in
                let bound = try bindable(value, for: key)
                return { SQLFragment("\($0) = ?", [bound]) }
            }
            return (try listFieldName(key), tests)
        case let .listMemberBeginsWith(key, prefix):
            // Numbers sort before every string, so only strings match (any string for "").
            return (try listFieldName(key), [{ startsWith(SQLFragment($0), prefix) }])
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
        for conjunct in conjuncts {
            guard let (name, tests) = try elementTests(conjunct), listIndexes.contains(name) else { continue }
            for test in tests {
                let rows = SQLFragment("SELECT COUNT(*) FROM (SELECT 1 FROM \(SchemaIndexes.listTableName(name)) WHERE ")
                    + test("value") + SQLFragment(" LIMIT ?)", [fewListMatchesLimit + 1])
                let arguments = StatementArguments(rows.arguments.map { $0 as (any DatabaseValueConvertible)? })
                if try Int.fetchOne(db, sql: rows.sql, arguments: arguments) ?? 0 <= fewListMatchesLimit { return true }
            }
        }
        return false
    }

    /// The list field a list match names; system fields are not lists.
    static func listFieldName(_ key: PredicateKey) throws -> String {
        guard case .field(let name) = key else {
            throw CloudError(.invalidArguments, "List matches need a list field, not a system field")
        }
        try FieldName.validate(name)
        return name
    }

    /// Rows whose list field `name` has an element for which `condition` (given the element's
    /// SQL expression) holds: looked up in the field's side table of elements when it has one
    /// (a QUERYABLE list, see ``SchemaIndexes``), else found by walking the row's list.
    static func listElement(of name: String, indexed: Bool, _ condition: (String) -> SQLFragment) -> SQLFragment {
        if indexed {
            return SQLFragment("r.id IN (SELECT id FROM \(SchemaIndexes.listTableName(name)) WHERE ") + condition("value") + SQLFragment(")")
        }
        return SQLFragment("EXISTS (SELECT 1 FROM json_each(r.fields, '\(FieldName.valuePath(name))') WHERE ")
            + condition("json_each.value") + SQLFragment(")")
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
        case .textSearch(let text): SQLQueryPlan.ftsQuery(PredicateRules.words(in: text), separator: " ")
        case .textSearchAsTyped(let text): SQLQueryPlan.typedFTSQuery(text)
        case .and(let nodes): nodes.lazy.compactMap(\.firstFTSMatch).first
        default: nil
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

    var bindable: any DatabaseValueConvertible & Sendable {
        switch self {
        case .null: DatabaseValue.null
        case .integer(let i): i
        case .real(let d): d
        case .text(let s): s
        }
    }
}
