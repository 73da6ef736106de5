/// One row of a store's change log, as a notification reader sees it.
package struct LoggedChange: Sendable {
    package var seq: Int64
    package var scope: Database.Scope
    package var owner: String
    package var zone: String
    package var recordName: String
    package var recordType: String
    /// `created`, `updated`, `deleted`, `zoneCreated` or `zoneDeleted`.
    package var kind: String
    package var modifiedBy: String
    package var at: Double
    /// For a deletion, the parent the record had ("" for none); `nil` when not logged.
    package var parent: String?

    package init(seq: Int64, scope: Database.Scope, owner: String, zone: String, recordName: String, recordType: String,
                 kind: String, modifiedBy: String, at: Double, parent: String? = nil) {
        self.parent = parent
        self.seq = seq
        self.scope = scope
        self.owner = owner
        self.zone = zone
        self.recordName = recordName
        self.recordType = recordType
        self.kind = kind
        self.modifiedBy = modifiedBy
        self.at = at
    }

    /// What a record change fires; `nil` for zone changes.
    package var reason: Notification.Reason? {
        switch kind {
        case "created": .recordCreated
        case "updated": .recordUpdated
        case "deleted": .recordDeleted
        default: nil
        }
    }
}
