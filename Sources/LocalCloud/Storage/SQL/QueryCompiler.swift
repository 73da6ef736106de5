import Foundation

/// A query compiled to one SELECT in `Dialect`: the zone and type prefix the indexes lead with,
/// the predicate, the keyset condition after the cursor's anchor, the ORDER BY (NULL first
/// ascending, last descending, on every store), and a LIMIT one past the page.
///
/// ```swift
/// let compiler = QueryCompiler(dialect: SQLiteDialect())
/// let query = try compiler.compile(request, context: context)
/// // query.text.sql: "SELECT r.id, … FROM records r WHERE (r.scope = ? AND …) ORDER BY … LIMIT 51"
/// ```
///
/// CloudKit's query rules live here once; a dialect only says how its engine writes each piece.
/// Values are only ever bound; field names (validated identifiers) appear in the text.
package struct QueryCompiler<Dialect: SQLDialect> {
    package let dialect: Dialect

    package init(dialect: Dialect) {
        self.dialect = dialect
    }

    /// A compiled query: its text and values, the fields to decode, and the kinds of the sort
    /// values `s0…` that follow the record columns.
    package struct Compiled {
        package var text: SQLFragment
        package var fieldKeys: [String]?
        package var sortKinds: [SortValueKind]
        /// The query has a predicate beyond its zone and record type (a cursor is not one).
        package var isFiltered: Bool
    }

    /// One ORDER BY expression and how its value is kept in a cursor.
    struct SortExpression {
        var fragment: SQLFragment
        var kind: SortValueKind
        /// False for system columns, which are NOT NULL.
        var nullable: Bool
    }

    /// - Parameter startsFromRowSet: the plan should start from a short set of row IDs (a
    ///   full-text match, a list of names, a rare list element) and sort them, so the keyset and
    ///   the ORDER BY are kept from steering the engine toward walking a sort index.
    package func compile(_ request: QueryRequest, context: StoreContext, startsFromRowSet: Bool = false) throws -> Compiled {
        try FieldName.validate(request.recordType, what: "Record type")
        let sorts = try request.sort.map { try sortExpression($0) }
        let tieAscending = request.sort.last?.ascending ?? true
        let fieldKeys = try QuerySQL.fieldKeys(request.desiredKeys)
        // Built in place: joining fragments with `+` copied the text and the arguments at every step.
        var whole = SQLFragment("SELECT ")
        whole.sql.reserveCapacity(512)
        whole.arguments.reserveCapacity(16)
        whole.sql += dialect.recordColumns
        for (i, sort) in sorts.enumerated() {
            whole.sql += ", "
            whole += dialect.sortSelection(sort.fragment, kind: sort.kind)
            whole.sql += " AS s\(i)"
        }
        let zone: [SQLValue] = [.integer(Int64(context.scope.rawValue)), .text(context.owner), .text(request.zoneID.zoneName)]
        whole.sql += " FROM \(dialect.recordsTable) r"
        whole.sql += " WHERE ("
        whole.sql += dialect.zoneAndType
        whole.sql += ")"
        whole.arguments += zone
        whole.arguments.append(.text(request.recordType))
        let predicate = try self.predicate(request.predicate, zone: zone)
        let isFiltered = predicate.sql != dialect.trueCondition
        if isFiltered {
            whole.sql += " AND ("
            whole += predicate
            whole.sql += ")"
        }
        if let anchor = request.anchor {
            whole.sql += " AND ("
            let after = try keyset(after: anchor, sort: request.sort, expressions: sorts, tieAscending: tieAscending)
            whole += startsFromRowSet ? dialect.unindexed(after) : after
            whole.sql += ")"
        }
        // With no sort descriptors the order is by row ID alone.
        whole.sql += " ORDER BY "
        for (sort, key) in zip(sorts, request.sort) {
            whole += startsFromRowSet ? dialect.unindexed(sort.fragment) : sort.fragment
            whole.sql += key.ascending ? " ASC" : " DESC"
            if sort.nullable { whole.sql += dialect.nullOrdering(ascending: key.ascending) }
            whole.sql += ", "
        }
        // The limit is written, not bound: a plan made for an unknown LIMIT expects a tenth of the
        // table, which keeps PostgreSQL from reusing the plan of a prepared page.
        whole.sql += tieAscending ? "r.id ASC LIMIT " : "r.id DESC LIMIT "
        whole.sql += String(request.limit + 1)
        return Compiled(text: whole, fieldKeys: fieldKeys, sortKinds: sorts.map(\.kind), isFiltered: isFiltered)
    }

    // MARK: Sorting and keysets

    func sortExpression(_ key: QuerySortKey) throws -> SortExpression {
        if let location = key.location {
            try FieldName.validate(key.key, what: "Sort key")
            return SortExpression(fragment: distance(key.key, from: location), kind: .real, nullable: true)
        }
        if let column = QuerySQL.systemColumn(forSortKey: key.key) {
            return SortExpression(fragment: SQLFragment(column), kind: column.hasSuffix("_at") ? .real : .text, nullable: false)
        }
        try FieldName.validate(key.key, what: "Sort key")
        return SortExpression(fragment: SQLFragment(dialect.field(key.key)), kind: .json, nullable: true)
    }

    /// The great-circle distance in kilometres from a location field to `location`.
    func distance(_ field: String, from location: Location) -> SQLFragment {
        SQLFragment("\(dialect.distanceFunction)(\(dialect.coordinate(of: field, 0)), \(dialect.coordinate(of: field, 1)), ?, ?)",
                    [.real(location.latitude), .real(location.longitude)])
    }

    /// Rows strictly after the anchor in sort order, where NULL sorts first ascending and last
    /// descending. When every key is a non-NULL system column sorted one way, a row-value
    /// comparison lets the engine seek the index directly.
    func keyset(after anchor: QueryAnchor, sort: [QuerySortKey], expressions: [SortExpression],
                tieAscending: Bool) throws -> SQLFragment {
        guard anchor.values.count == expressions.count else {
            throw CloudError(.invalidArguments, "The query cursor does not match its query")
        }
        let uniform = sort.allSatisfy { $0.ascending == tieAscending && $0.location == nil && QuerySQL.systemColumn(forSortKey: $0.key) != nil }
        if uniform && !anchor.values.contains(.null) {
            // `(k1, k2, r.id) < (?, ?, ?)`
            var after = SQLFragment("(")
            for expression in expressions {
                after += expression.fragment
                after.sql += ", "
            }
            after.sql += tieAscending ? "r.id) > (" : "r.id) < ("
            after.sql += String(repeating: "?, ", count: expressions.count) + "?)"
            for (value, expression) in zip(anchor.values, expressions) {
                after.arguments.append(try dialect.cursorValue(value, kind: expression.kind))
            }
            after.arguments.append(.integer(anchor.rowID))
            return after
        }
        // General form: (k1 after v1) OR (k1 = v1 AND k2 after v2) … OR (all equal AND id after anchor).
        var alternatives: [SQLFragment] = []
        var equalPrefix: [SQLFragment] = []
        for (i, sortExpression) in expressions.enumerated() {
            let expression = sortExpression.fragment
            let value = anchor.values[i]
            let after: SQLFragment
            switch (value, sort[i].ascending) {
            case (.null, true): after = expression + SQLFragment(" IS NOT NULL")
            case (.null, false): after = SQLFragment(dialect.falseCondition)
            case (_, true): after = expression + SQLFragment(" > ?", [try dialect.cursorValue(value, kind: sortExpression.kind)])
            case (_, false):
                after = SQLFragment("(") + expression + SQLFragment(" < ? OR ", [try dialect.cursorValue(value, kind: sortExpression.kind)])
                    + expression + SQLFragment(" IS NULL)")
            }
            alternatives.append(SQLFragment.joined(equalPrefix + [after], separator: " AND "))
            equalPrefix.append(value == .null
                ? expression + SQLFragment(" IS NULL")
                : expression + SQLFragment(" = ?", [try dialect.cursorValue(value, kind: sortExpression.kind)]))
        }
        let tie = SQLFragment(tieAscending ? "r.id > ?" : "r.id < ?", [.integer(anchor.rowID)])
        alternatives.append(SQLFragment.joined(equalPrefix + [tie], separator: " AND "))
        return SQLFragment.joined(alternatives.map { SQLFragment("(") + $0 + SQLFragment(")") }, separator: " OR ")
    }

    // MARK: Predicates

    /// The predicate as a condition on `records r`.
    ///
    /// - Parameter zone: the scope, owner and zone of the query. With it (and a dialect that
    ///   wants it), `recordName IN {…}` looks the names up in the unique key first.
    package func predicate(_ node: PredicateNode, zone: [SQLValue]? = nil) throws -> SQLFragment {
        switch node {
        case .truePredicate:
            return SQLFragment(dialect.trueCondition)
        case .falsePredicate:
            return SQLFragment(dialect.falseCondition)
        case .and(let nodes):
            guard !nodes.isEmpty else { return SQLFragment(dialect.trueCondition) }
            return SQLFragment.joined(try nodes.map {
                SQLFragment("(") + (try predicate($0, zone: zone)) + SQLFragment(")")
            }, separator: " AND ")
        case .not(let inner):
            return SQLFragment("NOT (") + (try predicate(inner, zone: zone)) + SQLFragment(")")
        case let .comparison(key, op, value):
            let sqlOperator = switch op {
            case .equal: "="
            case .notEqual: dialect.notEqualOperator
            case .less: "<"
            case .lessOrEqual: "<="
            case .greater: ">"
            case .greaterOrEqual: ">="
            }
            return SQLFragment("\(try keyExpression(key)) \(sqlOperator) ?", [try dialect.value(value, comparedWith: key)])
        case let .between(key, lower, upper):
            return SQLFragment("\(try keyExpression(key)) BETWEEN ? AND ?",
                               [try dialect.value(lower, comparedWith: key), try dialect.value(upper, comparedWith: key)])
        case let .beginsWith(key, prefix):
            let isField = if case .field = key { true } else { false }
            return try dialect.beginsWith(try keyExpression(key), isField: isField, prefix: prefix)
        case let .in(key, values):
            guard !values.isEmpty else { return SQLFragment(dialect.falseCondition) }
            let bound = try values.map { try dialect.value($0, comparedWith: key) }
            if key == .recordName, dialect.seeksRecordNamesInUniqueKey, let zone {
                return recordNames(bound, zone: zone)
            }
            return SQLFragment("\(try keyExpression(key)) IN (\(SQLFragment.placeholders(values.count)))", bound)
        case let .listContains(key, value):
            return try dialect.listContainsAll(try QuerySQL.listFieldName(key), [value])
        case let .listContainsAll(key, values):
            let name = try QuerySQL.listFieldName(key)
            guard !values.isEmpty else { return SQLFragment(dialect.trueCondition) }
            return try dialect.listContainsAll(name, values)
        case let .listContainsAny(key, values):
            let name = try QuerySQL.listFieldName(key)
            guard !values.isEmpty else { return SQLFragment(dialect.falseCondition) }
            return try dialect.listContainsAny(name, values)
        case let .listMemberBeginsWith(key, prefix):
            return try dialect.listMemberBeginsWith(try QuerySQL.listFieldName(key), prefix)
        case .textSearch(let text):
            return dialect.textMatch(.allWords(PredicateRules.words(in: text))) ?? SQLFragment(dialect.falseCondition)
        case .textSearchAny(let texts):
            return dialect.textMatch(.anyWord(texts.flatMap(PredicateRules.words(in:)))) ?? SQLFragment(dialect.falseCondition)
        case .textSearchAsTyped(let text):
            return dialect.textMatch(.asTyped(TypedSearchTerms(text).terms)) ?? SQLFragment(dialect.falseCondition)
        case let .distance(key, location, op, kilometres):
            let (name, sqlOperator) = try PredicateRules.distanceComparison(key, op)
            let exact = distance(name, from: location) + SQLFragment(" \(sqlOperator) ?", [.real(kilometres)])
            // Within a radius: first what an index answers (the box around the circle), then the exact distance.
            guard op == .less || op == .lessOrEqual,
                  let box = dialect.within(BoundingBox(center: location, kilometres: kilometres), field: name) else { return exact }
            return box + SQLFragment(" AND ") + exact
        }
    }

    /// `recordName IN {…}` as `r.id IN (rows of the unique key with those names)`.
    ///
    /// Written plainly, SQLite prefers walking a type index in row-ID order (no sort step,
    /// and without statistics it takes the type prefix to be selective) and tests every row
    /// of the type: about 100 ms for 100,000 records. The subquery probes the unique key
    /// `(scope, owner, zone, record_name)` once per name, and the outer query then seeks each
    /// row ID in order, so the cost is the number of names.
    func recordNames(_ names: [SQLValue], zone: [SQLValue]) -> SQLFragment {
        SQLFragment("r.id IN (SELECT id FROM \(dialect.recordsTable) WHERE scope = ? AND owner = ? AND zone = ? AND record_name IN (\(SQLFragment.placeholders(names.count))))",
                    zone + names)
    }

    func keyExpression(_ key: PredicateKey) throws -> String {
        switch key {
        case .creationDate: return "r.created_at"
        case .modificationDate: return "r.modified_at"
        case .recordName: return "r.record_name"
        case .creatorUserRecordID: return "r.created_by"
        case .lastModifiedUserRecordID: return "r.modified_by"
        case .field(let name):
            try FieldName.validate(name)
            return dialect.field(name)
        }
    }
}
