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

    /// A participant for the person with this email address.
    ///
    /// - Throws: `unknownItem`: the embedded store keeps no email addresses (a server's accounts do).
    public func shareParticipant(forEmailAddress emailAddress: String) async throws -> Share.Participant {
        throw CloudError(.unknownItem, "No user has the email address \(String(emailAddress.prefix(80))) in this container")
    }

    /// What a share URL holds, before accepting it.
    /// - Throws: `unknownItem` for a URL that names no share; `participantMayNeedVerification`
    ///   for a private share the user is not in.
    public func shareMetadata(for url: URL, shouldFetchRootRecord: Bool = false, rootRecordDesiredKeys: [String]? = nil)
        async throws -> Share.Metadata {
        try await runOnPrivateQueue { store, user in
            try store.metadata(shortGUID: SharingStore.shortGUID(in: url), user: user, containerIdentifier: self.containerIdentifier,
                               fetchRoot: shouldFetchRootRecord, rootKeys: rootRecordDesiredKeys)
        }
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
        return try await runOnPrivateQueue { store, user in try store.accept(shortGUID: guid, user: user) }
    }

    /// Runs a sharing call on the private database's queue, off the cooperative pool (store calls block).
    func runOnPrivateQueue<T: Sendable>(_ body: @escaping @Sendable (SharingStore, String?) throws -> T) async throws -> T {
        let user = configuration.user
        let core = core
        return try await privateCloudDatabase.perform { _ in
            guard let store = try core.sharingStore() else {
                throw CloudError(.serverRejectedRequest, "Sharing through a remote container is not available yet")
            }
            return try body(store, user)
        }
    }
}
