import Foundation

// CloudKit's sharing calls on the container: finding people, reading a share URL, accepting.
extension Container {
    /// A participant for the person with this user record ID (`_bob`), to add to a share.
    ///
    /// On the embedded store every name on the machine is an account (`LOCALCLOUD_USER`), so any
    /// valid name is found.
    /// - Throws: `unknownItem` for a name no account can have.
    public func shareParticipant(forUserRecordID userRecordID: Record.ID) async throws -> Share.Participant {
        let name = userRecordID.recordName.hasPrefix("_") ? String(userRecordID.recordName.dropFirst()) : userRecordID.recordName
        guard !name.isEmpty, name.utf8.count <= 64,
              name.unicodeScalars.allSatisfy({ $0.isASCIILetter || ("0"..."9").contains($0) || "._-@".unicodeScalars.contains($0) }) else {
            throw CloudError(.unknownItem, "No user has the user record ID \(String(userRecordID.recordName.prefix(80)))")
        }
        let id = Record.ID(recordName: "_" + name)
        return Share.Participant(userIdentity: UserIdentity(userRecordID: id, lookupInfo: .init(userRecordID: id)),
                                 role: .privateUser, permission: .readOnly, acceptanceStatus: .pending)
    }

    /// A participant for the person with this email address: the discoverable account added with
    /// `localcloud users add NAME --email ADDRESS`. A remote container asks its server
    /// (`users/lookup/email`); the embedded store reads the accounts of its own data directory
    /// (`<dataDir>/<container>/identity.sqlite`, what `localcloud users` writes there), and a
    /// PostgreSQL-backed container the accounts in its database.
    ///
    /// - Throws: `unknownItem` for an address no discoverable account has.
    public func shareParticipant(forEmailAddress emailAddress: String) async throws -> Share.Participant {
        let unknown = CloudError(.unknownItem, "No user has the email address \(String(emailAddress.prefix(80))) in this container")
        let address = emailAddress.trimmingCharacters(in: .whitespaces).lowercased()
        let found: Record.ID? = try await runSharing { store, _ in
            guard !address.isEmpty, address.utf8.count <= 254, address.contains("@"),
                  let name = try await store.catalog.userName(forEmailAddress: address) else { return nil }
            return Record.ID(recordName: "_" + name)
        } remote: { remote in
            try await remote.lookupUser(emailAddress: emailAddress)
        }
        guard let id = found else { throw unknown }
        var lookup = UserIdentity.LookupInfo(emailAddress: emailAddress)
        lookup.userRecordID = id
        return Share.Participant(userIdentity: UserIdentity(userRecordID: id, lookupInfo: lookup),
                                 role: .privateUser, permission: .readOnly, acceptanceStatus: .pending)
    }

    /// What a share URL holds, before accepting it.
    /// - Throws: `unknownItem` for a URL that names no share; `participantMayNeedVerification`
    ///   for a private share the user is not in.
    public func shareMetadata(for url: URL, shouldFetchRootRecord: Bool = false, rootRecordDesiredKeys: [String]? = nil)
        async throws -> Share.Metadata {
        try await shareMetadata(shortGUID: SharingStore.shortGUID(in: url), shouldFetchRootRecord: shouldFetchRootRecord,
                                rootRecordDesiredKeys: rootRecordDesiredKeys)
    }

    /// The metadata of several share URLs, each with its own result.
    public func shareMetadatas(for urls: [URL]) async throws -> [URL: Result<Share.Metadata, any Error>] {
        var results: [URL: Result<Share.Metadata, any Error>] = [:]
        for url in urls {
            do { results[url] = .success(try await shareMetadata(for: url)) } catch { results[url] = .failure(error) }
        }
        return results
    }

    /// Accepts a share: its zone then shows in ``sharedCloudDatabase`` under the owner's name.
    @discardableResult
    public func accept(_ metadata: Share.Metadata) async throws -> Share {
        guard let guid = metadata.share.shortGUID else {
            throw CloudError(.invalidArguments, "The metadata has no share URL")
        }
        return try await acceptShare(shortGUID: guid)
    }

}

/// What the share page of `localcloud serve` may show about a share to someone without an account.
package struct ShareSummary: Sendable {
    /// The title and owner, only for a public share (anyone with the URL may join it).
    package var title: String?
    package var ownerName: String?
    package var publicPermission: Share.ParticipantPermission
}

extension Container {
    /// The share with this short GUID in this container, as its page may describe it to anyone;
    /// `nil` when this container has none.
    package func shareSummary(shortGUID: String) async throws -> ShareSummary? {
        let core = core
        return try await privateCloudDatabase.perform { _ in
            guard let store = try await core.sharingStore(), let stored = try await store.share(shortGUID: shortGUID) else { return nil }
            let share = stored.share
            let isPublic = share.publicPermission == .readOnly || share.publicPermission == .readWrite
            return ShareSummary(title: isPublic ? share[Share.SystemFieldKey.title] as? String : nil,
                                ownerName: isPublic ? stored.owner : nil, publicPermission: share.publicPermission)
        }
    }

    /// The metadata of a short GUID (what `records/resolve` answers).
    package func shareMetadata(shortGUID: String, shouldFetchRootRecord: Bool, rootRecordDesiredKeys: [String]?) async throws -> Share.Metadata {
        let identifier = containerIdentifier
        return try await runSharing { store, user in
            try await store.metadata(shortGUID: shortGUID, user: user, containerIdentifier: identifier,
                               fetchRoot: shouldFetchRootRecord, rootKeys: rootRecordDesiredKeys)
        } remote: { remote in
            try await remote.resolveShare(shortGUID: shortGUID, fetchRoot: shouldFetchRootRecord, rootKeys: rootRecordDesiredKeys,
                                    containerIdentifier: identifier)
        }
    }

    /// Accepts the share with this short GUID (what `records/accept` does).
    package func acceptShare(shortGUID: String) async throws -> Share {
        try await runSharing { store, user in try await store.accept(shortGUID: shortGUID, user: user) } remote: { remote in
            try await remote.acceptShare(shortGUID: shortGUID)
        }
    }

    /// Runs a sharing call as a private-database operation: through the local
    /// sharing layer, or the remote container's server.
    func runSharing<T: Sendable>(_ local: @escaping @Sendable (SharingStore, String?) async throws -> T,
                                 remote: @escaping @Sendable (RemoteStore) async throws -> T) async throws -> T {
        let user = configuration.user
        let core = core
        return try await privateCloudDatabase.perform { _ in
            if let store = try await core.sharingStore() { return try await local(store, user) }
            guard let remoteStore = try await core.store() as? RemoteStore else {
                throw CloudError(.internalError, "This store cannot share")
            }
            return try await remote(remoteStore)
        }
    }
}
