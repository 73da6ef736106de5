/// What a request does to records of a type, for the permission check.
package enum RecordAction: String, Sendable, Hashable, CaseIterable {
    /// Fetch or query.
    case read
    /// Save a record that does not exist yet.
    case create
    /// Change or delete an existing record.
    case write

    /// The permission the action needs.
    package var permission: Permissions {
        switch self {
        case .read: .read
        case .create: .create
        case .write: .write
        }
    }

    /// `READ`, `CREATE`, `WRITE`, as CloudKit's messages name them.
    package var keyword: String { rawValue.uppercased() }
}
