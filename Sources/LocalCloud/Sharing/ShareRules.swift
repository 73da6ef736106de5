/// CloudKit's sharing rules, written once above every store: who may read and write what in
/// another user's zone, decided from the shares the store holds.
///
/// ```swift
/// let grant = ShareRules.grant(user: "bob", owner: "alice", zoneName: "Lists", shares: catalog)
/// if grant.covers(recordName: entry, ancestors: chain) && grant.permission == .readWrite { … }
/// ```
///
/// The notification path asks the same ``canRead(user:owner:zoneName:recordName:ancestors:shares:)``
/// question, so a removed participant stops hearing about changes when they stop seeing them.
package enum ShareRules {
    /// What one user may do in one owner's zone through that zone's shares.
    package struct Grant: Sendable {
        /// Hierarchy shares the user is in: root record name → permission.
        package var roots: [String: Share.ParticipantPermission] = [:]
        /// The permission of a zone-wide share the user is in, if any.
        package var zoneWide: Share.ParticipantPermission?

        /// Whether the user is in any share of the zone (the zone shows in their shared database).
        package var isEmpty: Bool { roots.isEmpty && zoneWide == nil }

        /// Whether every record of the zone is covered, so no parent chain needs reading.
        package var coversWholeZone: Bool { zoneWide != nil }

        /// The permission on a record given its name and its parents' names (nearest first);
        /// `.none` when no share the user is in covers it.
        package func permission(recordName: String, ancestors: [String]) -> Share.ParticipantPermission {
            var best = permission(recordName: recordName)
            for name in ancestors {
                if let permission = roots[name], permission.rawValue > best.rawValue { best = permission }
            }
            return best
        }

        /// The permission on a record from its own name alone (a root, or the zone-wide share).
        package func permission(recordName: String) -> Share.ParticipantPermission {
            let best = zoneWide ?? .none
            if let permission = roots[recordName], permission.rawValue > best.rawValue { return permission }
            return best
        }
    }

    /// The permission a participant entry gives, `.none` unless accepted.
    package static func permission(of participant: Share.Participant, in share: Share) -> Share.ParticipantPermission {
        guard participant.acceptanceStatus == .accepted else { return .none }
        switch participant.role {
        case .owner: return .readWrite
        case .privateUser: return participant.permission
        case .publicUser:
            // A public user's access follows the share's public permission (none once it is withdrawn).
            let granted = participant.permission.rawValue < share.publicPermission.rawValue ? participant.permission : share.publicPermission
            return granted
        case .unknown: return .none
        }
    }

    /// The participant entry of `user` in `share`, if any.
    package static func participant(_ user: String, in share: Share) -> Share.Participant? {
        let recordName = "_" + user
        return share.participantList.first { $0.userIdentity.userRecordID?.recordName == recordName }
    }

    /// What `user` may do in `owner`'s zone `zoneName`. The owner is not a participant of their
    /// own zone here: they reach it through their private database.
    package static func grant(user: String, owner: String, zoneName: String, shares: [StoredShare]) -> Grant {
        var grant = Grant()
        guard user != owner else { return grant }
        for stored in shares where stored.owner == owner && stored.zoneName == zoneName {
            guard let permission = stored.access[user] else { continue }
            if let root = stored.rootRecordName {
                if (grant.roots[root]?.rawValue ?? 0) < permission.rawValue { grant.roots[root] = permission }
            } else if (grant.zoneWide?.rawValue ?? 0) < permission.rawValue {
                grant.zoneWide = permission
            }
        }
        return grant
    }

    /// The zones `user` sees in their shared database: (owner, zone name), sorted.
    package static func sharedZones(user: String, shares: [StoredShare]) -> [(owner: String, zoneName: String)] {
        var seen = Set<String>()
        var zones: [(owner: String, zoneName: String)] = []
        for stored in shares where stored.owner != user && stored.access[user] != nil {
            if seen.insert(stored.owner + "\u{0}" + stored.zoneName).inserted {
                zones.append((stored.owner, stored.zoneName))
            }
        }
        return zones.sorted { ($0.owner, $0.zoneName) < ($1.owner, $1.zoneName) }
    }

    /// The one read decision: may `user` see this record of `owner`'s zone?
    package static func canRead(user: String, owner: String, zoneName: String, recordName: String, ancestors: [String],
                                shares: [StoredShare]) -> Bool {
        if user == owner { return true }
        let permission = grant(user: user, owner: owner, zoneName: zoneName, shares: shares)
            .permission(recordName: recordName, ancestors: ancestors)
        return permission == .readOnly || permission == .readWrite
    }

    /// May `user` open the share's metadata? Owners and its private participants (not removed) may;
    /// anyone may while it is public.
    package static func canSeeMetadata(user: String?, stored: StoredShare) -> Bool {
        if stored.share.publicPermission == .readOnly || stored.share.publicPermission == .readWrite { return true }
        guard let user else { return false }
        if user == stored.owner { return true }
        guard let entry = participant(user, in: stored.share) else { return false }
        return entry.acceptanceStatus != .removed
    }

    /// Checks a share before it is saved: owner first, no private participants on a public share.
    package static func validate(_ share: Share) throws {
        let publicShare = share.publicPermission == .readOnly || share.publicPermission == .readWrite
        if publicShare, share.participantList.contains(where: { $0.role == .privateUser && $0.acceptanceStatus != .removed }) {
            throw CloudError(.invalidArguments,
                             "A share is either private or public: remove its private participants before setting publicPermission",
                             recordID: share.recordID)
        }
    }
}
