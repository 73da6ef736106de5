import Foundation
import LocalCloud

/// A query compiled to one SELECT on PostgreSQL: the zone and type prefix the indexes lead
/// with, the predicate, the keyset condition after the cursor's anchor, the ORDER BY, and a
/// LIMIT one past the page.
///
/// A field's comparable value is the jsonb `r.fields -> 'name' -> 'v'` (the scalar ``FieldsJSON``
/// stores), compared with bound jsonb values, so one expression index per field
/// (``PostgresSchemaIndexes``) serves equality, ranges and sorting for every value type.
/// Values are only ever bound; field names (validated identifiers) appear as literals.
struct PostgresQueryPlan {
    var statement: PostgresStatement
    var fieldKeys: [String]?
    /// Sort values follow the record columns; each is read back into the next cursor's anchor.
    var sortKinds: [SortValueKind]

    /// How a sort column is read and bound again: a float (dates, distances), text (names) or jsonb (fields).
    enum SortValueKind {
        case real, text, json
    }

    /// - Parameters:
    ///   - schema: the store's PostgreSQL schema.
    ///   - collationIsC: strings on jsonb compare in code-point order, so a prefix may become an index range.
    static func compile(_ request: QueryRequest, context: StoreContext, schema: String, collationIsC: Bool) throws -> PostgresQueryPlan {
        try FieldName.validate(request.recordType, what: "Record type")
        var statement = PostgresStatement()
        var compiler = PredicateCompiler(schema: schema, collationIsC: collationIsC)
        let sorts = try request.sort.map { try compiler.sortExpression($0, &statement) }
        var sql = "SELECT \(PostgresStore.recordColumns)"
        for (i, sort) in sorts.enumerated() {
            sql += ", " + (sort.kind == .json ? "(\(sort.sql))::text" : sort.sql) + " AS s\(i)"
        }
        sql += " FROM \(schema).records r WHERE r.scope = \(statement.bind(context.scope.rawValue))"
        sql += " AND r.owner = \(statement.bind(context.owner)) AND r.zone = \(statement.bind(request.zoneID.zoneName))"
        sql += " AND r.record_type = \(statement.bind(request.recordType))"
        let predicate = try compiler.compile(request.predicate, &statement)
        if predicate != "TRUE" { sql += " AND (\(predicate))" }
        let tieAscending = request.sort.last?.ascending ?? true
        if let anchor = request.anchor {
            sql += " AND (\(try keyset(after: anchor, sorts: sorts, sortKeys: request.sort, tieAscending: tieAscending, &statement)))"
        }
        sql += " ORDER BY "
        for (sort, key) in zip(sorts, request.sort) {
            // NULL (a record without the field) sorts first ascending and last descending, as in
            // SQLite; system columns are never NULL and keep the plain order their indexes have.
            switch (key.ascending, sort.nullable) {
            case (true, true): sql += sort.sql + " ASC NULLS FIRST, "
            case (false, true): sql += sort.sql + " DESC NULLS LAST, "
            case (true, false): sql += sort.sql + " ASC, "
            case (false, false): sql += sort.sql + " DESC, "
            }
        }
        sql += tieAscending ? "r.id ASC" : "r.id DESC"
        sql += " LIMIT \(statement.bind(request.limit + 1))"
        statement.sql = sql
        return PostgresQueryPlan(statement: statement, fieldKeys: try SQLQueryPlan.fieldKeys(request.desiredKeys),
                                 sortKinds: sorts.map(\.kind))
    }

    /// Rows strictly after the anchor in sort order, where NULL sorts first ascending and last
    /// descending (see `compile`); when every key is a non-NULL system column sorted one way, a row
    /// comparison lets PostgreSQL seek the index directly.
    static func keyset(after anchor: QueryAnchor, sorts: [SortExpression], sortKeys: [QuerySortKey], tieAscending: Bool,
                       _ statement: inout PostgresStatement) throws -> String {
        guard anchor.values.count == sorts.count else {
            throw CloudError(.invalidArguments, "The query cursor does not match its query")
        }
        func bound(_ value: SQLScalar, _ kind: SortValueKind) throws -> String {
            switch (value, kind) {
            case (.real(let d), .real): return statement.bind(d)
            case (.integer(let i), .real): return statement.bind(Double(i))
            case (.text(let s), .text): return statement.bind(s)
            case (.text(let s), .json): return statement.bindJSON(s)
            default: throw CloudError(.invalidArguments, "The query cursor does not match its query")
            }
        }
        let uniform = sortKeys.allSatisfy { $0.ascending == tieAscending && $0.location == nil && SQLQueryPlan.systemColumn(forSortKey: $0.key) != nil }
        if uniform && !anchor.values.contains(.null) {
            let values = try zip(anchor.values, sorts).map { try bound($0, $1.kind) } + [statement.bind(anchor.rowID)]
            return "(" + (sorts.map(\.sql) + ["r.id"]).joined(separator: ", ") + (tieAscending ? ") > (" : ") < (")
                + values.joined(separator: ", ") + ")"
        }
        var alternatives: [String] = []
        var equalPrefix: [String] = []
        for (i, sort) in sorts.enumerated() {
            let value = anchor.values[i]
            let after: String
            switch (value, sortKeys[i].ascending) {
            case (.null, true): after = "\(sort.sql) IS NOT NULL"
            case (.null, false): after = "FALSE"
            case (_, true): after = "\(sort.sql) > \(try bound(value, sort.kind))"
            case (_, false): after = "(\(sort.sql) < \(try bound(value, sort.kind)) OR \(sort.sql) IS NULL)"
            }
            alternatives.append((equalPrefix + [after]).joined(separator: " AND "))
            equalPrefix.append(value == .null ? "\(sort.sql) IS NULL" : "\(sort.sql) = \(try bound(value, sort.kind))")
        }
        let tie = tieAscending ? "r.id > \(statement.bind(anchor.rowID))" : "r.id < \(statement.bind(anchor.rowID))"
        alternatives.append((equalPrefix + [tie]).joined(separator: " AND "))
        return alternatives.map { "(\($0))" }.joined(separator: " OR ")
    }

    /// One ORDER BY expression and how its value is kept in a cursor.
    struct SortExpression {
        var sql: String
        var kind: SortValueKind
        /// False for system columns, which are NOT NULL.
        var nullable = true
    }
}

/// Predicates as PostgreSQL conditions on `records r`.
struct PredicateCompiler {
    let schema: String
    let collationIsC: Bool

    /// A field's comparable jsonb value; the same text as the expression indexes, so they match.
    static func fieldValue(_ name: String) -> String { "(r.fields -> '\(name)' -> 'v')" }

    /// A location field's latitude or longitude (`coordinate` is NULL for anything else).
    func coordinate(_ name: String, _ index: Int) -> String {
        "\(schema).coordinate(r.fields -> '\(name)' -> 'v', \(index))"
    }

    func sortExpression(_ key: QuerySortKey, _ statement: inout PostgresStatement) throws -> PostgresQueryPlan.SortExpression {
        if let location = key.location {
            try FieldName.validate(key.key, what: "Sort key")
            return .init(sql: distance(key.key, from: location, &statement), kind: .real)
        }
        if let column = SQLQueryPlan.systemColumn(forSortKey: key.key) {
            return .init(sql: column, kind: column.hasSuffix("_at") ? .real : .text, nullable: false)
        }
        try FieldName.validate(key.key, what: "Sort key")
        return .init(sql: Self.fieldValue(key.key), kind: .json)
    }

    func distance(_ field: String, from location: Location, _ statement: inout PostgresStatement) -> String {
        "\(schema).distance_km(\(coordinate(field, 0)), \(coordinate(field, 1)), \(statement.bind(location.latitude))::float8, \(statement.bind(location.longitude))::float8)"
    }

    mutating func compile(_ node: PredicateNode, _ statement: inout PostgresStatement) throws -> String {
        switch node {
        case .truePredicate:
            return "TRUE"
        case .falsePredicate:
            return "FALSE"
        case .and(let nodes):
            guard !nodes.isEmpty else { return "TRUE" }
            return try nodes.map { "(\(try compile($0, &statement)))" }.joined(separator: " AND ")
        case .not(let inner):
            return "NOT (\(try compile(inner, &statement)))"
        case let .comparison(key, op, value):
            let sqlOperator = switch op {
            case .equal: "="
            case .notEqual: "<>"
            case .less: "<"
            case .lessOrEqual: "<="
            case .greater: ">"
            case .greaterOrEqual: ">="
            }
            let (expression, bound) = try keyAndValue(key, value, &statement)
            return "\(expression) \(sqlOperator) \(bound)"
        case let .between(key, lower, upper):
            let (expression, low) = try keyAndValue(key, lower, &statement)
            let (_, high) = try keyAndValue(key, upper, &statement)
            return "\(expression) BETWEEN \(low) AND \(high)"
        case let .beginsWith(key, prefix):
            return try beginsWith(key, prefix, &statement)
        case let .in(key, values):
            guard !values.isEmpty else { return "FALSE" }
            let expression = try keyExpression(key)
            let bound = try values.map { try keyAndValue(key, $0, &statement).value }
            return "\(expression) IN (\(bound.joined(separator: ", ")))"
        case let .listContains(key, value):
            return try contains(key, [value], &statement)
        case let .listContainsAll(key, values):
            return try contains(key, values, &statement)
        case let .listContainsAny(key, values):
            guard !values.isEmpty else { return "FALSE" }
            return try values.map { "(\(try contains(key, [$0], &statement)))" }.joined(separator: " OR ")
        case let .listMemberBeginsWith(key, prefix):
            let name = try listFieldName(key)
            let list = Self.fieldValue(name)
            return """
                EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(\(list)) = 'array' THEN \(list) END) e \
                WHERE jsonb_typeof(e) = 'string' AND starts_with(e #>> '{}', \(statement.bind(prefix))))
                """
        case .textSearch(let text):
            guard let query = Self.tsquery(PredicateRules.words(in: text), separator: " & ") else { return "FALSE" }
            return "r.search @@ to_tsquery('\(schema).localcloud_search', \(statement.bind(query)))"
        case .textSearchAny(let texts):
            guard let query = Self.tsquery(texts.flatMap(PredicateRules.words(in:)), separator: " | ") else { return "FALSE" }
            return "r.search @@ to_tsquery('\(schema).localcloud_search', \(statement.bind(query)))"
        case .textSearchAsTyped(let text):
            guard let query = Self.typedTSQuery(text) else { return "FALSE" }
            return "r.search @@ to_tsquery('\(schema).localcloud_search', \(statement.bind(query)))"
        case let .distance(key, location, op, kilometres):
            let (name, sqlOperator) = try PredicateRules.distanceComparison(key, op)
            let exact = "\(distance(name, from: location, &statement)) \(sqlOperator) \(statement.bind(kilometres))::float8"
            guard op == .less || op == .lessOrEqual else { return exact }
            // Within a radius: a latitude band first (a B-tree range on the location's expression
            // index), longitude next, then the exact great-circle distance.
            let box = BoundingBox(center: location, kilometres: kilometres)
            var terms = ["\(coordinate(name, 0)) BETWEEN \(statement.bind(box.minLatitude))::float8 AND \(statement.bind(box.maxLatitude))::float8"]
            if let longitudes = box.longitudes {
                terms.append("\(coordinate(name, 1)) BETWEEN \(statement.bind(longitudes.lowerBound))::float8 AND \(statement.bind(longitudes.upperBound))::float8")
            }
            return (terms + [exact]).joined(separator: " AND ")
        }
    }

    /// A key's SQL expression and `value` bound to compare with it.
    func keyAndValue(_ key: PredicateKey, _ value: FieldValue, _ statement: inout PostgresStatement) throws -> (expression: String, value: String) {
        let expression = try keyExpression(key)
        switch key {
        case .creationDate, .modificationDate:
            guard case .date(let date) = value else {
                throw CloudError(.invalidArguments, "\(key) compares with dates")
            }
            return (expression, statement.bind(date.timeIntervalSince1970) + "::float8")
        case .recordName, .creatorUserRecordID, .lastModifiedUserRecordID:
            switch value {
            case .string(let s): return (expression, statement.bind(s))
            case .reference(let r): return (expression, statement.bind(r.recordID.recordName))
            default: throw CloudError(.invalidArguments, "\(key) compares with names")
            }
        case .field:
            return (expression, statement.bindJSON(try Self.json(value)))
        }
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
            return Self.fieldValue(name)
        }
    }

    /// The jsonb scalar a value compares as: what ``FieldsJSON`` stores under `v`.
    static func json(_ value: FieldValue) throws -> String {
        switch value {
        case .location:
            throw CloudError(.invalidArguments, "Locations can only be compared with distanceToLocation:fromLocation:")
        case .list:
            throw CloudError(.invalidArguments, "A list can only be the right-hand side of IN")
        case .asset(let asset) where asset.contentDigest == nil:
            throw CloudError(.invalidArguments, "Assets cannot be compared in a predicate")
        default:
            // `{"x":{"t":…,"v":SCALAR…}}`: the stored entry's `v`, exactly as saves write it.
            let entry = FieldsJSON.encode(["x": value])
            guard let data = entry.data(using: .utf8),
                  let object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? [String: Any],
                  let stored = object["x"] as? [String: Any], let scalar = stored["v"] else {
                throw CloudError(.internalError, "Cannot encode a predicate value")
            }
            let encoded = try JSONSerialization.data(withJSONObject: scalar, options: [.fragmentsAllowed, .sortedKeys])
            return String(decoding: encoded, as: UTF8.self)
        }
    }

    private func beginsWith(_ key: PredicateKey, _ prefix: String, _ statement: inout PostgresStatement) throws -> String {
        let expression = try keyExpression(key)
        let isField = if case .field = key { true } else { false }
        let text = isField ? "(\(expression) #>> '{}')" : expression
        let typeTest = isField ? "jsonb_typeof(\(expression)) = 'string' AND " : ""
        guard !prefix.isEmpty else { return "\(typeTest)\(text) IS NOT NULL" }
        var test = "\(typeTest)starts_with(\(text), \(statement.bind(prefix)))"
        // In code-point order the prefix's range lets a B-tree seek just the matches.
        if collationIsC {
            let lower = isField ? statement.bindJSON(try Self.json(.string(prefix))) : statement.bind(prefix)
            test = "\(expression) >= \(lower) AND " + test
            if let upper = SQLQueryPlan.prefixUpperBound(prefix) {
                let bound = isField ? statement.bindJSON(try Self.json(.string(upper))) : statement.bind(upper)
                test = "\(expression) < \(bound) AND " + test
            }
        }
        return test
    }

    /// The list field holds every one of `values` (jsonb containment; a GIN index on a queryable list serves it).
    private func contains(_ key: PredicateKey, _ values: [FieldValue], _ statement: inout PostgresStatement) throws -> String {
        let name = try listFieldName(key)
        let elements = try values.map { try Self.json($0) }
        return "\(Self.fieldValue(name)) @> \(statement.bindJSON("[" + elements.joined(separator: ",") + "]"))"
    }

    private func listFieldName(_ key: PredicateKey) throws -> String {
        guard case .field(let name) = key else {
            throw CloudError(.invalidArguments, "List matches need a list field, not a system field")
        }
        try FieldName.validate(name)
        return name
    }

    /// Words as a tsquery: each a quoted lexeme of the text as written (weight D, see
    /// ``PostgresStore/searchVector(_:_:)``), joined by `&` (all) or `|` (any); `nil` for none.
    static func tsquery(_ words: [Substring], separator: String) -> String? {
        guard !words.isEmpty else { return nil }
        return words.map { lexeme($0) + ":D" }.joined(separator: separator)
    }

    /// A search as you type as a tsquery over the segmented lexemes (weight B): finished words
    /// whole, the word being typed as a prefix (`'de':*B`), a CJK run as a phrase of its
    /// characters (`'拉':B <-> '麵':B`), all required; `nil` when there is no word.
    static func typedTSQuery(_ text: String) -> String? {
        let terms = TypedSearchTerms(text).terms
        guard !terms.isEmpty else { return nil }
        return terms.map { term in
            switch term {
            case .word(let word): lexeme(word[...]) + ":B"
            case .prefix(let prefix): lexeme(prefix[...]) + ":*B"
            case .run(let characters): "(" + characters.map { lexeme($0[...]) + ":B" }.joined(separator: " <-> ") + ")"
            }
        }.joined(separator: " & ")
    }

    /// A quoted tsquery lexeme: quotes doubled and backslashes escaped, so it is only searched for.
    private static func lexeme(_ word: Substring) -> String {
        "'" + word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
    }
}

/// The latitude band and longitude range a radius around a point fits in.
struct BoundingBox {
    var minLatitude: Double
    var maxLatitude: Double
    /// `nil` near the poles or across the antimeridian, where longitude bounds nothing.
    var longitudes: ClosedRange<Double>?

    init(center: Location, kilometres: Double) {
        let degrees = kilometres / 111.0 + 0.01
        minLatitude = center.latitude - degrees
        maxLatitude = center.latitude + degrees
        let cosine = cos(min(89, abs(center.latitude) + degrees) * .pi / 180)
        let spread = degrees / max(cosine, 1e-6)
        if maxLatitude < 89, minLatitude > -89, center.longitude - spread > -180, center.longitude + spread < 180 {
            longitudes = (center.longitude - spread)...(center.longitude + spread)
        }
    }
}
