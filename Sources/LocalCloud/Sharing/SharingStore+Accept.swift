import Foundation

extension SharingStore {
    /// The short GUID in a share URL: `localcloud://share/GUID`, `{server}/share/GUID#title`.
    /// - Throws: `unknownItem` for a URL that names no share.
    static func shortGUID(in url: URL) throws -> String {
        let guid = url.lastPathComponent
        guard url.pathComponents.dropLast().last == "share" || url.host == "share",
              guid.count == 22, Base64URL.decode(guid)?.count == 16 else {
            throw CloudError(.unknownItem, "Not a share URL: \(String(url.absoluteString.prefix(120)))")
        }
        return guid
    }

    /// The share behind a short GUID as `user` may see it.
    /// - Throws: `unknownItem` for an unknown (or tampered) GUID; `participantMayNeedVerification`
    ///   when the share exists but the user is not in it, as CloudKit answers.
    func visibleShare(shortGUID: String, user: String?) async throws -> StoredShare {
        guard let stored = try await share(shortGUID: shortGUID) else {
            throw CloudError(.unknownItem, "No share has this URL: it was deleted, or the URL is mistyped")
        }
        guard ShareRules.canSeeMetadata(user: user, stored: stored) else {
            throw CloudError(.participantMayNeedVerification, "You are not a participant of this share: ask its owner to invite you")
        }
        return stored
    }

    /// `Share.Metadata` for one short GUID, with the root record when asked.
    func metadata(shortGUID: String, user: String?, containerIdentifier: String, fetchRoot: Bool,
                  rootKeys: [String]?) async throws -> Share.Metadata {
        let stored = try await visibleShare(shortGUID: shortGUID, user: user)
        let share = presented(stored.share, viewer: user)
        let sharedZone = RecordZone.ID(zoneName: stored.zoneName, ownerName: "_" + stored.owner)
        let rootID = stored.share.rootRecordName.map { Record.ID(recordName: $0, zoneID: sharedZone) }
        var root: Record?
        if fetchRoot, let rootName = stored.share.rootRecordName {
            let ownerID = Record.ID(recordName: rootName, zoneID: RecordZone.ID(zoneName: stored.zoneName))
            let ownerContext = StoreContext(scope: .private, user: stored.owner)
            root = try? await base.fetchRecords([ownerID], desiredKeys: rootKeys, context: ownerContext)[ownerID]?.get()
                .relocated(to: sharedZone)
        }
        let entry = user.flatMap { ShareRules.participant($0, in: stored.share) }
        let role: Share.ParticipantRole
        let status: Share.ParticipantAcceptanceStatus
        let permission: Share.ParticipantPermission
        if user == stored.owner {
            (role, status, permission) = (.owner, .accepted, .readWrite)
        } else if let entry, entry.acceptanceStatus != .removed {
            (role, status, permission) = (entry.role, entry.acceptanceStatus, entry.role == .publicUser ? stored.share.publicPermission : entry.permission)
        } else {
            (role, status, permission) = (.publicUser, .pending, stored.share.publicPermission)
        }
        return Share.Metadata(
            containerIdentifier: containerIdentifier, share: presented(share.relocated(to: sharedZone) as? Share ?? share, viewer: user),
            hierarchicalRootRecordID: rootID, rootRecord: root, participantRole: role, participantStatus: status,
            participantPermission: permission, ownerIdentity: UserIdentity(userRecordID: Record.ID(recordName: "_" + stored.owner)))
    }

    /// Accepts a share for `user`: a private participant's entry becomes accepted; on a public
    /// share, a newcomer joins as a public user. Returns the share as saved.
    func accept(shortGUID: String, user: String?) async throws -> Share {
        guard let user else {
            throw CloudError(.notAuthenticated, "No account: sign in (set LOCALCLOUD_USER) to accept a share")
        }
        let stored = try await visibleShare(shortGUID: shortGUID, user: user)
        let sharedZone = RecordZone.ID(zoneName: stored.zoneName, ownerName: "_" + stored.owner)
        if user == stored.owner { return presented(stored.share, viewer: user).relocated(to: sharedZone) as? Share ?? stored.share }
        let entry = ShareRules.participant(user, in: stored.share)
        let isPublic = stored.share.publicPermission == .readOnly || stored.share.publicPermission == .readWrite
        if entry == nil && !isPublic {
            throw CloudError(.participantMayNeedVerification, "You are not a participant of this share: ask its owner to invite you")
        }
        let joining = Share.Participant(userIdentity: UserIdentity(userRecordID: Record.ID(recordName: "_" + user)),
                                        role: .publicUser, permission: stored.share.publicPermission, acceptanceStatus: .pending)
        let saved = try await updateParticipant(user, in: stored, add: joining) { participant in
            participant.acceptanceStatus = .accepted
        }
        return presented(saved, viewer: user).relocated(to: sharedZone) as? Share ?? saved
    }
}
