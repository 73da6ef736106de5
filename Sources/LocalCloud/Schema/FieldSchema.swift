/// One field of a record type: its type and which indexes it has.
package struct FieldSchema: Hashable, Sendable, Codable {
    package var name: String
    package var type: FieldType
    package var isQueryable: Bool
    package var isSortable: Bool
    package var isSearchable: Bool

    package init(name: String, type: FieldType, queryable: Bool = false, sortable: Bool = false, searchable: Bool = false) {
        self.name = name
        self.type = type
        isQueryable = queryable
        isSortable = sortable
        isSearchable = searchable
    }

    /// Whether the field has an index of `kind`.
    package func has(_ kind: IndexKind) -> Bool {
        switch kind {
        case .queryable: isQueryable
        case .sortable: isSortable
        case .searchable: isSearchable
        }
    }

    package mutating func set(_ kind: IndexKind, _ on: Bool) {
        switch kind {
        case .queryable: isQueryable = on
        case .sortable: isSortable = on
        case .searchable: isSearchable = on
        }
    }

    /// The index kinds this field has, in keyword order.
    package var indexes: [IndexKind] { IndexKind.allCases.filter(has) }

    /// Whether this is one of the implicit `___` system fields.
    package var isSystem: Bool { SystemField(storedName: name) != nil }
}
