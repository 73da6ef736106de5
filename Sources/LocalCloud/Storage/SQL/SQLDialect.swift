import Foundation

/// What one SQL engine writes differently: its literals, how a field's value and a
/// location's coordinates are read, and how text, list and prefix matches are answered.
///
/// ``QueryCompiler`` owns everything else (the SELECT, the predicate walk, the keyset, NULL
/// ordering, the bounding box); SQLite and PostgreSQL each supply a dialect and run the result.
package protocol SQLDialect {
    /// Conditions that always hold and never hold (`1`/`0` in SQLite, `TRUE`/`FALSE` in PostgreSQL).
    var trueCondition: String { get }
    var falseCondition: String { get }
    var notEqualOperator: String { get }
    /// The records table as FROM names it (with its schema, if any).
    var recordsTable: String { get }
    /// The columns every record is read from, before the sort values `s0…`.
    var recordColumns: String { get }
    /// The zone and type every query starts from, for `records r`: scope, owner, zone name and
    /// record type, bound in that order.
    var zoneAndType: String { get }
    /// `recordName IN {…}` is looked up in the `(scope, owner, zone, record_name)` key first.
    var seeksRecordNamesInUniqueKey: Bool { get }

    /// A field's comparable value: the scalar the fields JSON stores under `v`.
    func field(_ name: String) -> String
    /// A location field's latitude (`index` 0) or longitude (1); NULL for anything else.
    func coordinate(of field: String, _ index: Int) -> String
    /// The great-circle distance function: `(lat1, lon1, lat2, lon2)` → kilometres.
    var distanceFunction: String { get }
    /// What a sort expression is selected as, to be read back into a cursor.
    func sortSelection(_ expression: SQLFragment, kind: SortValueKind) -> SQLFragment
    /// The ORDER BY suffix that puts NULL first ascending and last descending ("" where that is the default).
    func nullOrdering(ascending: Bool) -> String

    /// The value `value` compares as against `key`.
    func value(_ value: FieldValue, comparedWith key: PredicateKey) throws -> SQLValue
    /// A cursor's sort value bound again against an expression of `kind`.
    func cursorValue(_ value: SQLScalar, kind: SortValueKind) throws -> SQLValue

    /// `expression` (a field's value when `isField`) is a string starting with `prefix`; "" means any string.
    func beginsWith(_ expression: String, isField: Bool, prefix: String) throws -> SQLFragment
    /// The list field holds every one of `values` (not empty).
    func listContainsAll(_ field: String, _ values: [FieldValue]) throws -> SQLFragment
    /// The list field holds one of `values` (not empty).
    func listContainsAny(_ field: String, _ values: [FieldValue]) throws -> SQLFragment
    /// The list field holds a string starting with `prefix`.
    func listMemberBeginsWith(_ field: String, _ prefix: String) throws -> SQLFragment
    /// Records whose text matches; `nil` when the match has no word and so finds nothing.
    func textMatch(_ match: TextMatch) -> SQLFragment?
    /// A condition an index answers that holds for every point inside `box`, or `nil` for none.
    func within(_ box: BoundingBox, field: String) -> SQLFragment?
    /// `expression` kept from steering the plan's choice of index (SQLite's unary `+`).
    func unindexed(_ expression: SQLFragment) -> SQLFragment
}
