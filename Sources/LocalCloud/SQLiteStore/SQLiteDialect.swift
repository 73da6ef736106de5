import Foundation

/// How SQLite writes a query (``QueryCompiler``): `?` placeholders, fields read with
/// `json_extract`, text matched in the FTS5 table, lists in their side tables of elements, and a
/// distance narrowed by a location's R-tree.
package struct SQLiteDialect: SQLDialect {
    /// Location fields with an R-tree (``SchemaIndexes``), which a distance filter uses.
    var locationIndexes: Set<String> = []
    /// List fields with a side table of their elements (``SchemaIndexes``), which list matches use.
    var listIndexes: Set<String> = []

    package var trueCondition: String { "1" }
    package var falseCondition: String { "0" }
    package var notEqualOperator: String { "!=" }
    package var recordsTable: String { "records" }
    package var recordColumns: String { SQLQueryPlan.recordColumns }
    /// The type is bound as `+?`: the partial index `records_shares` holds `record_type =
    /// 'cloudkit_share'`, and a bare `?` compared with it marks the statement to be compiled again
    /// whenever that value is bound anew (it could make the partial index usable), so a cached
    /// page statement was compiled again on every query.
    package var zoneAndType: String { Self.zoneAndType }
    static let zoneAndType = "r.scope = ? AND r.owner = ? AND r.zone = ? AND r.record_type = +?"
    package var seeksRecordNamesInUniqueKey: Bool { true }
    package var distanceFunction: String { "localcloud_distance_km" }

    package func field(_ name: String) -> String {
        "json_extract(r.fields, '\(FieldName.valuePath(name))')"
    }

    package func coordinate(of field: String, _ index: Int) -> String {
        "json_extract(r.fields, '\(FieldName.valuePath(field))[\(index)]')"
    }

    /// SQLite returns a field's scalar as it is, and sorts NULL first ascending already.
    package func sortSelection(_ expression: SQLFragment, kind: SortValueKind) -> SQLFragment { expression }
    package func nullOrdering(ascending: Bool) -> String { "" }

    /// The same scalar the fields JSON stores under `v`.
    package func value(_ value: FieldValue, comparedWith key: PredicateKey) throws -> SQLValue {
        switch value {
        case .string(let s): return .text(s)
        case .int64(let i): return .integer(i)
        case .double(let d): return .real(d)
        case .bool(let b): return .integer(b ? 1 : 0)
        case .date(let d): return .real(d.timeIntervalSince1970)
        case .bytes(let d): return .text(d.base64EncodedString())
        case .reference(let r): return .text(r.recordID.recordName)
        case .asset(let a):
            guard let digest = a.contentDigest else {
                throw CloudError(.invalidArguments, "Assets cannot be compared in a predicate")
            }
            return .text(digest)
        case .location:
            throw CloudError(.invalidArguments, "Locations can only be compared with distanceToLocation:fromLocation:")
        case .list:
            throw CloudError(.invalidArguments, "A list can only be the right-hand side of IN")
        }
    }

    package func cursorValue(_ value: SQLScalar, kind: SortValueKind) throws -> SQLValue {
        switch value {
        case .null: .null
        case .integer(let i): .integer(i)
        case .real(let d): .real(d)
        case .text(let s): .text(s)
        }
    }

    /// The range `[prefix, successor)` lets an index seek just the matching entries (with the
    /// lower bound alone it read on to the end of the index); substr keeps the test exact
    /// whatever the bounds. Numbers sort before every string, so only strings match.
    package func beginsWith(_ expression: String, isField: Bool, prefix: String) throws -> SQLFragment {
        guard !prefix.isEmpty else { return SQLFragment("\(expression) IS NOT NULL") }
        return Self.startsWith(expression, prefix)
    }

    static func startsWith(_ expression: String, _ prefix: String) -> SQLFragment {
        var test = SQLFragment("\(expression) >= ?", [.text(prefix)])
        if let upper = QuerySQL.prefixUpperBound(prefix) {
            test.sql += " AND \(expression) < ?"
            test.arguments.append(.text(upper))
        }
        test.sql += " AND substr(\(expression), 1, ?) = ?"
        test.arguments += [.integer(Int64(prefix.unicodeScalars.count)), .text(prefix)]
        return test
    }

    package func listContainsAll(_ field: String, _ values: [FieldValue]) throws -> SQLFragment {
        SQLFragment.joined(try equalTests(field, values).map { listElement(of: field, $0) }, separator: " AND ")
    }

    package func listContainsAny(_ field: String, _ values: [FieldValue]) throws -> SQLFragment {
        listElement(of: field, try oneOfTest(field, values))
    }

    package func listMemberBeginsWith(_ field: String, _ prefix: String) throws -> SQLFragment {
        listElement(of: field, Self.startsWithTest(prefix))
    }

    /// Tests on a list's elements, each given the element's SQL expression: one per value that
    /// must be there (so duplicates, and values SQL deems equal such as 1 and 1.0, need no care).
    func equalTests(_ field: String, _ values: [FieldValue]) throws -> [(String) -> SQLFragment] {
        try values.map { value in
            let bound = try self.value(value, comparedWith: .field(field))
            return { SQLFragment("\($0) = ?", [bound]) }
        }
    }

    /// A test that an element is one of `values`.
    func oneOfTest(_ field: String, _ values: [FieldValue]) throws -> (String) -> SQLFragment {
        let bound = try values.map { try value($0, comparedWith: .field(field)) }
        return { SQLFragment("\($0) IN (\(SQLFragment.placeholders(bound.count)))", bound) }
    }

    /// A test that an element is a string starting with `prefix` (numbers sort before every string).
    static func startsWithTest(_ prefix: String) -> (String) -> SQLFragment {
        { startsWith($0, prefix) }
    }

    /// Rows whose list field `name` has an element for which `condition` (given the element's
    /// SQL expression) holds: looked up in the field's side table of elements when it has one
    /// (a QUERYABLE list, see ``SchemaIndexes``), else found by walking the row's list.
    func listElement(of name: String, _ condition: (String) -> SQLFragment) -> SQLFragment {
        if listIndexes.contains(name) {
            return SQLFragment("r.id IN (SELECT id FROM \(SchemaIndexes.listTableName(name)) WHERE ") + condition("value") + SQLFragment(")")
        }
        return SQLFragment("EXISTS (SELECT 1 FROM json_each(r.fields, '\(FieldName.valuePath(name))') WHERE ")
            + condition("json_each.value") + SQLFragment(")")
    }

    package func textMatch(_ match: TextMatch) -> SQLFragment? {
        guard let query = Self.ftsQuery(match) else { return nil }
        return SQLFragment("r.id IN (SELECT rowid FROM records_fts WHERE records_fts MATCH ?)", [.text(query)])
    }

    /// `r.id IN (points inside the box)`: the R-tree narrows a distance filter to nearby records
    /// before the exact haversine test runs on them. Only a field with an R-tree has one.
    package func within(_ box: BoundingBox, field: String) -> SQLFragment? {
        guard locationIndexes.contains(field) else { return nil }
        let longitudes = box.longitudes ?? -180...180
        return SQLFragment(
            "r.id IN (SELECT id FROM \(SchemaIndexes.rtreeName(field)) WHERE min_lat <= ? AND max_lat >= ? AND min_lon <= ? AND max_lon >= ?)",
            [.real(box.latitudes.upperBound), .real(box.latitudes.lowerBound), .real(longitudes.upperBound), .real(longitudes.lowerBound)])
    }

    package func unindexed(_ expression: SQLFragment) -> SQLFragment {
        SQLFragment("+(") + expression + SQLFragment(")")
    }

    // MARK: FTS5 queries

    /// A text match as an FTS5 query; `nil` when there is no word.
    ///
    /// Words read the `body` column, the text as written, where a CJK word is one token as
    /// CloudKit's search has it: each quoted, all required or any of them. A search as you type
    /// reads the `segmented` column (every CJK character a token): finished words whole, the word
    /// being typed as a prefix (`"de" *`, served by the table's prefix index), a CJK run as a
    /// phrase of its characters.
    static func ftsQuery(_ match: TextMatch) -> String? {
        switch match {
        case .allWords(let words): ftsQuery(words, separator: " ")
        case .anyWord(let words): ftsQuery(words, separator: " OR ")
        case .asTyped(let terms):
            terms.isEmpty ? nil : terms.map { term in
                switch term {
                case .word(let word): "segmented : " + ftsString(word[...])
                case .prefix(let prefix): "segmented : " + ftsString(prefix[...]) + " *"
                case .run(let characters): "segmented : " + ftsString(characters.joined(separator: " ")[...])
                }
            }.joined(separator: " AND ")
        }
    }

    static func ftsQuery(_ words: [Substring], separator: String) -> String? {
        guard !words.isEmpty else { return nil }
        return "{body} : (" + words.map { ftsString($0) }.joined(separator: separator) + ")"
    }

    /// An FTS5 string: quoted, its quotes doubled, so it is only ever searched for.
    static func ftsString(_ text: Substring) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
