/// The three index kinds CloudKit offers per field.
package enum IndexKind: String, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// Equality and range filters (`==`, `<`, `IN`, `BEGINSWITH`, distance) and list matches
    /// (`CONTAINS`, `ANY … IN`, `ALL … IN`, `ANY … BEGINSWITH`).
    case queryable
    /// `SortDescriptor`s.
    case sortable
    /// `self CONTAINS 'token'` full-text search.
    case searchable

    /// The text-schema keyword: `QUERYABLE`, `SORTABLE`, `SEARCHABLE`.
    package var keyword: String { rawValue.uppercased() }
    package var description: String { rawValue }
}
