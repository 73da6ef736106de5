/// One record type: its fields (system fields first) and the grants of each security role.
package struct RecordTypeSchema: Hashable, Sendable, Codable {
    package var name: String
    /// Fields in declaration order; the six `___` system fields are always present.
    package var fields: [FieldSchema]
    /// Role name → what it may do with this type in the public database.
    package var grants: [String: Permissions]

    /// A type with only unindexed system fields and the given grants.
    package init(name: String, fields: [FieldSchema] = [], grants: [String: Permissions] = [:]) {
        self.name = name
        self.fields = []
        self.grants = grants
        for system in SystemField.allCases {
            self.fields.append(fields.first { $0.name == system.rawValue } ?? system.unindexed)
        }
        self.fields += fields.filter { !$0.isSystem }
    }

    /// CloudKit's defaults for a type created just in time: `_world` reads, `_icloud` creates, `_creator` writes.
    package static let defaultGrants: [String: Permissions] = [
        SecurityRole.world: .read, SecurityRole.icloud: .create, SecurityRole.creator: .write,
    ]

    package func field(named name: String) -> FieldSchema? {
        fields.first { $0.name == name }
    }

    package func system(_ field: SystemField) -> FieldSchema {
        self.field(named: field.rawValue) ?? field.unindexed
    }

    /// The user-defined fields, without the system ones.
    package var userFields: [FieldSchema] { fields.filter { !$0.isSystem } }

    package mutating func update(_ name: String, _ change: (inout FieldSchema) -> Void) {
        guard let index = fields.firstIndex(where: { $0.name == name }) else { return }
        change(&fields[index])
    }
}
