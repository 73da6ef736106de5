import Foundation
import LocalCloud

/// How PostgreSQL writes a query (``QueryCompiler``).
///
/// A field's comparable value is the jsonb `r.fields -> 'name' -> 'v'` (the scalar ``FieldsJSON``
/// stores), compared with bound jsonb values, so one expression index per field
/// (``PostgresSchemaIndexes``) serves equality, ranges and sorting for every value type. Text is
/// matched in the `search` tsvector (GIN), a list by jsonb containment (GIN on a queryable list),
/// and a radius by a latitude band on the location's expression index.
struct PostgresDialect: SQLDialect {
    /// The store's PostgreSQL schema, which holds its tables and functions.
    let schema: String
    /// Strings on jsonb compare in code-point order, so a prefix may become an index range.
    let collationIsC: Bool

    var trueCondition: String { "TRUE" }
    var falseCondition: String { "FALSE" }
    var notEqualOperator: String { "<>" }
    var recordsTable: String { "\(schema).records" }
    var recordColumns: String { PostgresStore.recordColumns }
    var zoneAndType: String { "r.scope = ? AND r.owner = ? AND r.zone = ? AND r.record_type = ?" }
    var seeksRecordNamesInUniqueKey: Bool { false }
    var distanceFunction: String { "\(schema).distance_km" }

    /// The same text as the expression indexes, so they match.
    func field(_ name: String) -> String { "(r.fields -> '\(name)' -> 'v')" }

    func coordinate(of field: String, _ index: Int) -> String {
        "\(schema).coordinate(r.fields -> '\(field)' -> 'v', \(index))"
    }

    /// A field's jsonb value is read back as its JSON text.
    func sortSelection(_ expression: SQLFragment, kind: SortValueKind) -> SQLFragment {
        kind == .json ? SQLFragment("(") + expression + SQLFragment(")::text") : expression
    }

    /// PostgreSQL sorts NULL last ascending; CloudKit (and SQLite) have it first.
    func nullOrdering(ascending: Bool) -> String { ascending ? " NULLS FIRST" : " NULLS LAST" }

    func value(_ value: FieldValue, comparedWith key: PredicateKey) throws -> SQLValue {
        switch key {
        case .creationDate, .modificationDate:
            guard case .date(let date) = value else {
                throw CloudError(.invalidArguments, "\(key) compares with dates")
            }
            return .real(date.timeIntervalSince1970)
        case .recordName, .creatorUserRecordID, .lastModifiedUserRecordID:
            switch value {
            case .string(let s): return .text(s)
            case .reference(let r): return .text(r.recordID.recordName)
            default: throw CloudError(.invalidArguments, "\(key) compares with names")
            }
        case .field:
            return .json(try Self.json(value))
        }
    }

    func cursorValue(_ value: SQLScalar, kind: SortValueKind) throws -> SQLValue {
        switch (value, kind) {
        case (.real(let d), .real): return .real(d)
        case (.integer(let i), .real): return .real(Double(i))
        case (.text(let s), .text): return .text(s)
        case (.text(let s), .json): return .json(s)
        default: throw CloudError(.invalidArguments, "The query cursor does not match its query")
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

    func beginsWith(_ expression: String, isField: Bool, prefix: String) throws -> SQLFragment {
        let text = isField ? "(\(expression) #>> '{}')" : expression
        let typeTest = isField ? "jsonb_typeof(\(expression)) = 'string' AND " : ""
        guard !prefix.isEmpty else { return SQLFragment("\(typeTest)\(text) IS NOT NULL") }
        var test = SQLFragment("")
        // In code-point order the prefix's range lets a B-tree seek just the matches.
        if collationIsC {
            if let upper = QuerySQL.prefixUpperBound(prefix) {
                test += SQLFragment("\(expression) < ? AND ", [isField ? .json(try Self.json(.string(upper))) : .text(upper)])
            }
            test += SQLFragment("\(expression) >= ? AND ", [isField ? .json(try Self.json(.string(prefix))) : .text(prefix)])
        }
        return test + SQLFragment("\(typeTest)starts_with(\(text), ?)", [.text(prefix)])
    }

    /// jsonb containment: a GIN index on a queryable list serves it.
    func listContainsAll(_ field: String, _ values: [FieldValue]) throws -> SQLFragment {
        let elements = try values.map { try Self.json($0) }
        return SQLFragment("\(self.field(field)) @> ?", [.json("[" + elements.joined(separator: ",") + "]")])
    }

    func listContainsAny(_ field: String, _ values: [FieldValue]) throws -> SQLFragment {
        SQLFragment.joined(try values.map { SQLFragment("(") + (try listContainsAll(field, [$0])) + SQLFragment(")") }, separator: " OR ")
    }

    func listMemberBeginsWith(_ field: String, _ prefix: String) throws -> SQLFragment {
        let list = self.field(field)
        return SQLFragment("""
            EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(\(list)) = 'array' THEN \(list) END) e \
            WHERE jsonb_typeof(e) = 'string' AND starts_with(e #>> '{}', ?))
            """, [.text(prefix)])
    }

    func textMatch(_ match: TextMatch) -> SQLFragment? {
        guard let query = Self.tsquery(match) else { return nil }
        return SQLFragment("r.search @@ to_tsquery('\(schema).localcloud_search', ?)", [.text(query)])
    }

    /// A latitude band first (a B-tree range on the location's expression index), then longitude.
    func within(_ box: BoundingBox, field: String) -> SQLFragment? {
        var band = SQLFragment("\(coordinate(of: field, 0)) BETWEEN ? AND ?",
                               [.real(box.latitudes.lowerBound), .real(box.latitudes.upperBound)])
        if let longitudes = box.longitudes {
            band += SQLFragment(" AND \(coordinate(of: field, 1)) BETWEEN ? AND ?",
                                [.real(longitudes.lowerBound), .real(longitudes.upperBound)])
        }
        return band
    }

    /// PostgreSQL plans from statistics; no term needs hiding from it.
    func unindexed(_ expression: SQLFragment) -> SQLFragment { expression }

    // MARK: tsqueries

    /// A text match as a tsquery; `nil` when there is no word.
    ///
    /// Words are quoted lexemes of the text as written (weight D, see
    /// ``PostgresStore/searchVector(_:_:)``), joined by `&` (all) or `|` (any). A search as you
    /// type reads the segmented lexemes (weight B): finished words whole, the word being typed as
    /// a prefix (`'de':*B`), a CJK run as a phrase of its characters (`'拉':B <-> '麵':B`), all required.
    static func tsquery(_ match: TextMatch) -> String? {
        switch match {
        case .allWords(let words): words.isEmpty ? nil : words.map { lexeme($0) + ":D" }.joined(separator: " & ")
        case .anyWord(let words): words.isEmpty ? nil : words.map { lexeme($0) + ":D" }.joined(separator: " | ")
        case .asTyped(let terms):
            terms.isEmpty ? nil : terms.map { term in
                switch term {
                case .word(let word): lexeme(word[...]) + ":B"
                case .prefix(let prefix): lexeme(prefix[...]) + ":*B"
                case .run(let characters): "(" + characters.map { lexeme($0[...]) + ":B" }.joined(separator: " <-> ") + ")"
                }
            }.joined(separator: " & ")
        }
    }

    /// A quoted tsquery lexeme: quotes doubled and backslashes escaped, so it is only searched for.
    private static func lexeme(_ word: Substring) -> String {
        "'" + word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
    }
}
