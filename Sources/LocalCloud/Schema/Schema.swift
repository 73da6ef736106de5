import Foundation

/// The schema of one container environment: record types, their fields and indexes, custom
/// security roles, and which users hold which roles.
///
/// ```swift
/// var schema = try Schema(ckdb: String(contentsOfFile: "Assets/FoodPin.ckdb"))
/// try schema.setIndex(.sortable, true, type: "Restaurant", field: "createdTimestamp")
/// print(schema.ckdb)
/// ```
///
/// Development evolves it just in time on save; production only changes by ``deploying(to:)``.
package struct Schema: Hashable, Sendable, Codable {
    /// The layout of the encoded form, so a later LocalCloud can read what this one wrote.
    package static let formatVersion = 1

    package var formatVersion: Int = Self.formatVersion
    /// Counts changes: every change that alters the schema bumps it.
    package var version: Int = 0
    /// Record types by name.
    package var recordTypes: [String: RecordTypeSchema] = [:]
    /// Custom security roles (the built-in `_world`, `_icloud`, `_creator` are implicit).
    package var roles: Set<String> = []
    /// User name → custom roles granted to that user. Data of this environment, not copied by deploy.
    package var members: [String: Set<String>] = [:]

    package init() {}

    /// The record types sorted by name, as printed and listed.
    package var sortedRecordTypes: [RecordTypeSchema] {
        recordTypes.values.sorted { $0.name < $1.name }
    }

    /// The custom roles a user holds.
    package func roles(of user: String) -> Set<String> {
        members[user] ?? []
    }

    /// Schema content without the bookkeeping (version, members): what deploy compares.
    package func sameDefinition(as other: Schema) -> Bool {
        recordTypes == other.recordTypes && roles == other.roles
    }
}
