import Foundation
import LocalCloud

extension CloudListsBackend {
    // MARK: Reading shares

    /// My lists with the people each is shared with (`link` for a public link).
    func withSharing(_ lists: [RestaurantListSummary]) async throws -> [RestaurantListSummary] {
        guard !lists.isEmpty else { return lists }
        let shares = try await shares(of: lists.map(\.ref), in: privateDatabase)
        return lists.map { list in
            var list = list
            if let share = shares[list.ref.recordName] { list.sharedWith = Self.people(in: share) }
            return list
        }
    }

    /// The lists others shared with me: the owners' `Lists` zones in my shared database.
    func sharedLists() async throws -> [RestaurantListSummary] {
        let database = container.sharedCloudDatabase
        let zones = try await database.allRecordZones().filter { $0.zoneID.zoneName == RestaurantListRecord.zoneName }
        var found: [RestaurantListSummary] = []
        for zone in zones {
            let owner = zone.zoneID.ownerName
            var lists: [RestaurantListSummary]
            do {
                lists = try await self.lists(in: database, zoneID: zone.zoneID, ownerName: owner)
            } catch let error as CloudError where error.code == .zoneNotFound || error.code == .permissionFailure {
                continue   // removed meanwhile
            }
            let shares = try await shares(of: lists.map(\.ref), in: database)
            for index in lists.indices {
                lists[index].owner = RestaurantRecord.userName(fromRecordName: owner)
                if let share = shares[lists[index].ref.recordName] {
                    let me = container.configuration.user.map { "_" + $0 }
                    let participant = share.currentUserParticipant
                        ?? share.participants.first { $0.role != .owner && $0.userIdentity.userRecordID?.recordName == me }
                    let permission = participant?.permission ?? share.publicPermission
                    lists[index].canWrite = permission == .readWrite
                    if let name = share.owner.userIdentity.userRecordID?.recordName {
                        lists[index].owner = RestaurantRecord.userName(fromRecordName: name)
                    }
                } else {
                    lists[index].canWrite = false
                }
            }
            found += lists
        }
        return found.sorted { ($0.name.lowercased(), $0.owner) < ($1.name.lowercased(), $1.owner) }
    }

    /// The share of each list that has one, by the list's record name.
    func shares(of refs: [RestaurantListRef], in database: Database) async throws -> [String: Share] {
        guard let first = refs.first else { return [:] }
        let zoneID = location(of: first).zoneID
        let ids = refs.map { Record.ID(recordName: $0.recordName, zoneID: zoneID) }
        var shareIDs: [Record.ID: String] = [:]
        for (id, result) in try await database.records(for: ids) {
            // The share lives in the list's zone: named as this database names it.
            if case .success(let record) = result, let share = record.share {
                shareIDs[Record.ID(recordName: share.recordID.recordName, zoneID: zoneID)] = id.recordName
            }
        }
        guard !shareIDs.isEmpty else { return [:] }
        var shares: [String: Share] = [:]
        let fetchedShares = try await database.records(for: Array(shareIDs.keys))
        for (id, result) in fetchedShares {
            if case .success(let record) = result, let share = record as? Share, let list = shareIDs[id] { shares[list] = share }
        }
        return shares
    }

    /// Who a share is with: accepted or invited private participants, and `link` for a public URL.
    static func people(in share: Share) -> [String] {
        var people = share.participants
            .filter { $0.role != .owner && $0.role != .publicUser && $0.acceptanceStatus != .removed }
            .map { participant in
                let name = participant.userIdentity.userRecordID.map { RestaurantRecord.userName(fromRecordName: $0.recordName) }
                    ?? participant.userIdentity.lookupInfo?.emailAddress ?? "?"
                return participant.permission == .readOnly ? name + " (read-only)" : name
            }
            .sorted()
        if share.publicPermission == .readOnly || share.publicPermission == .readWrite {
            people.append(share.publicPermission == .readOnly ? "link (read-only)" : "link")
        }
        return people
    }

    /// Puts an entry under its list, so a hierarchy share of the list covers it.
    func setParent(of entry: Record, to list: Record.ID) {
        entry.setParent(list)
    }

    // MARK: Sharing

    /// Shares one of my lists with people (user names, or email addresses on a server), read-write
    /// unless `readOnly`; returns the URL they accept with `foodpin accept`.
    package func share(listNamed name: String, with people: [String], readOnly: Bool) async throws -> URL {
        guard !people.isEmpty else { throw DiscoverError(.saveFailed, "Name at least one person to share with") }
        let (list, share) = try await shareOfOwnList(named: name)
        do {
            if share.publicPermission != .none && share.publicPermission != .unknown {
                throw DiscoverError(.saveFailed,
                    "“\(name)” has a public link: a list is shared by link or with chosen people, not both (foodpin unshare \(name) --all first)")
            }
            for person in people {
                let trimmed = person.trimmingCharacters(in: .whitespaces)
                var participant = try await trimmed.contains("@")
                    ? container.shareParticipant(forEmailAddress: trimmed)
                    : container.shareParticipant(forUserRecordID: Record.ID(recordName: trimmed.hasPrefix("_") ? trimmed : "_" + trimmed))
                participant.permission = readOnly ? .readOnly : .readWrite
                share.addParticipant(participant)
            }
            return try await saveShare(share, root: list)
        } catch {
            throw DiscoverError(error, while: .saveFailed)
        }
    }

    /// Makes a public link to one of my lists: anyone with the URL can join, read-write unless `readOnly`.
    package func shareLink(listNamed name: String, readOnly: Bool) async throws -> URL {
        let (list, share) = try await shareOfOwnList(named: name)
        if share.participants.contains(where: { $0.role == .privateUser && $0.acceptanceStatus != .removed }) {
            throw DiscoverError(.saveFailed,
                "“\(name)” is shared with chosen people: a list is shared by link or with chosen people, not both (foodpin unshare \(name) --all first)")
        }
        share.publicPermission = readOnly ? .readOnly : .readWrite
        do { return try await saveShare(share, root: list) } catch { throw DiscoverError(error, while: .saveFailed) }
    }

    /// Stops sharing one of my lists with one person, or with everyone (`user == nil`: the share is deleted).
    package func unshare(listNamed name: String, user: String?) async throws {
        guard let summary = try await ownList(named: name) else {
            throw DiscoverError(.notFound, "You have no list named “\(name)”")
        }
        guard let share = try await shares(of: [summary.ref], in: privateDatabase)[summary.ref.recordName] else {
            throw DiscoverError(.notFound, "“\(summary.name)” is not shared")
        }
        guard let user else {
            try await modify(privateDatabase, saving: [], deleting: [share.recordID])
            return
        }
        let wanted = user.hasPrefix("_") ? String(user.dropFirst()) : user
        guard let participant = share.participants.first(where: { participant in
            participant.role != .owner && (participant.userIdentity.userRecordID.map { RestaurantRecord.userName(fromRecordName: $0.recordName) } == wanted
                || participant.userIdentity.lookupInfo?.emailAddress?.caseInsensitiveCompare(wanted) == .orderedSame)
        }) else {
            throw DiscoverError(.notFound, "“\(summary.name)” is not shared with \(wanted)")
        }
        share.removeParticipant(participant)
        try await modify(privateDatabase, saving: [share])
    }

    /// Accepts a share URL; returns the list's name.
    package func accept(_ url: URL) async throws -> String {
        do {
            let metadata = try await container.shareMetadata(for: url, shouldFetchRootRecord: true,
                                                             rootRecordDesiredKeys: [RestaurantListRecord.name])
            if metadata.participantRole == .owner {
                throw DiscoverError(.saveFailed, "This is your own list's share: it is in foodpin lists already")
            }
            let share = try await container.accept(metadata)
            return metadata.rootRecord?[RestaurantListRecord.name] as? String
                ?? share[Share.SystemFieldKey.title] as? String ?? "the list"
        } catch {
            throw DiscoverError(error, while: .loadFailed)
        }
    }

    /// One of my lists and its share (a new, unsaved one when it has none).
    private func shareOfOwnList(named name: String) async throws -> (Record, Share) {
        guard let summary = try await ownList(named: name) else {
            throw DiscoverError(.notFound, "You have no list named “\(name)” (foodpin save RESTAURANT --to \(name) makes one)")
        }
        do {
            let id = Record.ID(recordName: summary.ref.recordName, zoneID: ownZoneID)
            let list = try await privateDatabase.record(for: id)
            if let reference = list.share, let share = try await privateDatabase.record(for: reference.recordID) as? Share {
                return (list, share)
            }
            let share = Share(rootRecord: list)
            share[Share.SystemFieldKey.title] = summary.name
            return (list, share)
        } catch {
            throw DiscoverError(error, while: .loadFailed)
        }
    }

    /// Saves a share (with its root, in one modify, as CloudKit wants for a new one); returns its URL.
    private func saveShare(_ share: Share, root: Record) async throws -> URL {
        let (saves, _) = try await privateDatabase.modifyRecords(saving: [root, share], deleting: [], savePolicy: .changedKeys)
        guard let result = saves[share.recordID] else { throw DiscoverError(.saveFailed, "The share was not saved") }
        let saved = try result.get()
        _ = try saves[root.recordID]?.get()
        guard let url = (saved as? Share)?.url ?? share.url else {
            throw DiscoverError(.saveFailed, "The share was saved without a URL")
        }
        return url
    }
}
