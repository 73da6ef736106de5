/// One share as its store keeps it: in `owner`'s private database.
///
/// The share's participants are a JSON field; they are decoded once here, when the catalog is
/// read, because every shared-database call asks who may do what (``ShareRules/grant(user:owner:zoneName:shares:)``).
package struct StoredShare: Sendable {
    package let owner: String
    package let share: Share
    /// The share's hierarchy root, `nil` for a zone-wide share.
    package let rootRecordName: String?
    /// The share's participants, decoded once.
    package let participants: [Share.Participant]
    /// What each participant's user name (`alice`, not `_alice`) may do through this share
    /// (``ShareRules/permission(of:in:)``); users who may do nothing are left out.
    package let access: [String: Share.ParticipantPermission]

    package init(owner: String, share: Share) {
        self.owner = owner
        self.share = share
        rootRecordName = share.rootRecordName
        let participants = share.participantList
        self.participants = participants
        var access: [String: Share.ParticipantPermission] = [:]
        var seen = Set<String>()
        for participant in participants {
            // A user's first entry is theirs, as in ``ShareRules/participant(_:in:)``.
            guard let recordName = participant.userIdentity.userRecordID?.recordName, recordName.hasPrefix("_"),
                  seen.insert(recordName).inserted else { continue }
            let permission = ShareRules.permission(of: participant, in: share)
            guard permission == .readOnly || permission == .readWrite else { continue }
            access[String(recordName.dropFirst())] = permission
        }
        self.access = access
    }

    package var zoneName: String { share.recordID.zoneID.zoneName }
}

/// What a store gives the sharing rules: every share in every user's private database.
///
/// Shares are ordinary records (of type ``Share/storedRecordType``) in the owner's zone; this is
/// the one query that crosses owners, for share URLs and for the shared database's zone list.
package protocol ShareCatalog: Sendable {
    func storedShares() async throws -> [StoredShare]

    /// The account name of the discoverable account registered with this email address
    /// (`localcloud users add NAME --email ADDRESS`, kept beside the store), `nil` when none is.
    /// `address` is normalized already (trimmed, lowercased), as accounts store it.
    func userName(forEmailAddress address: String) async throws -> String?
}

extension ShareCatalog {
    package func userName(forEmailAddress address: String) async throws -> String? { nil }
}
