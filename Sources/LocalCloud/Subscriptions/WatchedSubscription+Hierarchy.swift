import Foundation

// A participant of a hierarchy share hears only of the records the share covers: its root and the
// records below it through `Record.parent`, not every record of the owner's zone. Written once
// here; each store supplies the one read it needs, a record's parent name.
extension WatchedSubscription {
    /// The grant whose roots the change must fall under, when a parent chain must be walked: a
    /// shared-database subscription, and a user whose shares of the zone are hierarchy shares
    /// only. A deletion's chain starts at the parent its log row kept (``LoggedChange/parent``);
    /// one logged without it (before the log kept parents) is not walked. `nil` when no walk is needed.
    package func hierarchyGrant(for change: LoggedChange, reason: Notification.Reason, user: String,
                                shares: [StoredShare]) -> ShareRules.Grant? {
        guard row.scope == .shared, reason != .recordDeleted || change.parent != nil else { return nil }
        let grant = ShareRules.grant(user: user, owner: change.owner, zoneName: change.zone, shares: shares)
        return grant.isEmpty || grant.coversWholeZone ? nil : grant
    }

    /// Whether `recordName` is a root of `grant` or below one. `parent` reads a record's parent
    /// name in the same zone (`nil`: none, or no such record); the walk stops at a root, a loop or
    /// 32 levels, as reads do (``SharingStore``'s ancestors).
    package static func isCovered(_ recordName: String, by grant: ShareRules.Grant,
                                  parent: (String) throws -> String?) rethrows -> Bool {
        var ancestors: [String] = []
        var next = grant.roots[recordName] == nil ? try parent(recordName) : nil
        while let name = next, ancestors.count < 32, !ancestors.contains(name), name != recordName {
            ancestors.append(name)
            if grant.roots[name] != nil { break }
            next = try parent(name)
        }
        return Self.allows(grant.permission(recordName: recordName, ancestors: ancestors))
    }

    /// ``isCovered(_:by:parent:)`` for a store whose reads are async.
    package static func isCovered(_ recordName: String, by grant: ShareRules.Grant,
                                  parent: (String) async throws -> String?) async rethrows -> Bool {
        var ancestors: [String] = []
        var next = grant.roots[recordName] == nil ? try await parent(recordName) : nil
        while let name = next, ancestors.count < 32, !ancestors.contains(name), name != recordName {
            ancestors.append(name)
            if grant.roots[name] != nil { break }
            next = try await parent(name)
        }
        return Self.allows(grant.permission(recordName: recordName, ancestors: ancestors))
    }

    private static func allows(_ permission: Share.ParticipantPermission) -> Bool {
        permission == .readOnly || permission == .readWrite
    }
}
