import Foundation

extension SharingStore {
    /// The private database: shares are checked, completed and stored; roots learn their share.
    func modifyPrivate(_ items: [ModifyItem], atomically: Bool, context: StoreContext) async throws -> [ModifyItemResult] {
        let touchesShares = items.contains { item in
            switch item {
            case .save(let record, _): record is Share || record.recordType == Share.recordType
            case .delete: true
            }
        }
        guard touchesShares else {
            return try await base.modify(items, atomically: atomically, context: context).map { result in
                guard case .saved(let record) = result.outcome else { return result }
                return ModifyItemResult(recordID: result.recordID, outcome: .saved(presented(record, viewer: context.user)))
            }
        }
        guard let user = context.user else {
            throw CloudError(.notAuthenticated, "No account: the private database needs a signed-in user")
        }
        let catalog = try await shares().filter { $0.owner == user }
        var prepared: [ModifyItem] = []
        var failures: [Int: CloudError] = [:]
        var extraRoots: [Record] = []
        var extraDeletes: [Record.ID] = []
        for (index, item) in items.enumerated() {
            do {
                switch item {
                case let .save(record, rule):
                    guard record is Share || record.recordType == Share.recordType else {
                        prepared.append(item)
                        continue
                    }
                    let share = record as? Share ?? Share(recordID: record.recordID, state: record.snapshot)
                    try await prepare(share, owner: user, catalog: catalog, batch: items, extraRoots: &extraRoots, context: context)
                    prepared.append(.save(share.storedRecord(), rule))
                case let .delete(id, _):
                    prepared.append(item)
                    // Deleting a root deletes its share, as in CloudKit: everyone's access ends with it.
                    for stored in catalog where stored.zoneName == id.zoneID.zoneName && stored.share.rootRecordName == id.recordName {
                        let shareID = Record.ID(recordName: stored.share.recordID.recordName, zoneID: id.zoneID)
                        if !items.contains(where: { $0.recordID == shareID }) { extraDeletes.append(shareID) }
                    }
                    // Deleting a share frees its root for another one.
                    if let stored = catalog.first(where: { $0.share.recordID == id }), let rootName = stored.share.rootRecordName {
                        let rootID = Record.ID(recordName: rootName, zoneID: id.zoneID)
                        if !items.contains(where: { $0.recordID == rootID }),
                           let root = try? await base.fetchRecords([rootID], desiredKeys: nil, context: context)[rootID]?.get(),
                           root.share?.recordID.recordName == id.recordName {
                            root.share = nil
                            extraRoots.append(root)
                        }
                    }
                }
            } catch let error as CloudError {
                failures[index] = error
                prepared.append(item)
            }
        }
        if !failures.isEmpty {
            return items.enumerated().map { index, item in
                if let error = failures[index] {
                    return ModifyItemResult(recordID: item.recordID, outcome: .failed(error, isDelete: item.isDelete))
                }
                let error = atomically
                    ? CloudError(.batchRequestFailed, "Not saved: another item in the atomic batch failed", recordID: item.recordID)
                    : CloudError(.batchRequestFailed, "Not saved: a share in the same request was refused", recordID: item.recordID)
                return ModifyItemResult(recordID: item.recordID, outcome: .failed(error, isDelete: item.isDelete))
            }
        }
        let extra = extraRoots.map { ModifyItem.save($0, SaveRule(policy: .changedKeys)) }
            + extraDeletes.map { ModifyItem.delete($0, ifChangeTag: nil) }
        let written = try await base.modify(prepared + extra, atomically: atomically || !extra.isEmpty, context: context)
        return written.prefix(items.count).map { result in
            guard case .saved(let record) = result.outcome else { return result }
            return ModifyItemResult(recordID: result.recordID, outcome: .saved(presented(record, viewer: context.user)))
        }
    }

    /// Checks a share against the owner's other shares and completes it: short GUID, owner entry,
    /// and the root's `share` reference (the root in the batch, or fetched and saved with it).
    private func prepare(_ share: Share, owner: String, catalog: [StoredShare], batch: [ModifyItem],
                         extraRoots: inout [Record], context: StoreContext) async throws {
        let zoneID = share.recordID.zoneID
        guard zoneID.zoneName != RecordZone.ID.defaultZoneName else {
            throw CloudError(.invalidArguments, "Shares live in a custom zone: the default zone cannot be shared", recordID: share.recordID)
        }
        try ShareRules.validate(share)
        let existing = catalog.first { $0.share.recordID.recordName == share.recordID.recordName && $0.zoneName == zoneID.zoneName }
        let sameZone = catalog.filter { $0.zoneName == zoneID.zoneName && $0.share.recordID.recordName != share.recordID.recordName }
        if let rootName = share.rootRecordName {
            if sameZone.contains(where: { $0.share.rootRecordName == nil }) {
                throw CloudError(.alreadyShared, "The whole zone is shared already", recordID: share.recordID)
            }
            if sameZone.contains(where: { $0.share.rootRecordName == rootName }) {
                throw CloudError(.alreadyShared, "Record \(rootName) is in another share already", recordID: share.recordID)
            }
            let rootID = Record.ID(recordName: rootName, zoneID: zoneID)
            let inBatch = batch.compactMap { item -> Record? in
                if case .save(let record, _) = item, record.recordID == rootID { return record }
                return nil
            }.first
            if let root = inBatch {
                if let other = root.share, other.recordID.recordName != share.recordID.recordName {
                    throw CloudError(.alreadyShared, "Record \(rootName) is in another share already", recordID: share.recordID)
                }
                if root.share == nil { root.share = Record.Reference(recordID: share.recordID, action: .none) }
            } else if existing == nil {
                guard let root = try await base.fetchRecords([rootID], desiredKeys: nil, context: context)[rootID]?.get() else {
                    throw CloudError(.unknownItem, "The share's root record \(rootName) does not exist", recordID: share.recordID)
                }
                if let other = root.share, other.recordID.recordName != share.recordID.recordName {
                    throw CloudError(.alreadyShared, "Record \(rootName) is in another share already", recordID: share.recordID)
                }
                root.share = Record.Reference(recordID: share.recordID, action: .none)
                extraRoots.append(root)
            }
        } else if !sameZone.isEmpty {
            throw CloudError(.alreadyShared, "Records of this zone are shared already; a zone-wide share needs none", recordID: share.recordID)
        }
        if share.shortGUID == nil {
            share.setField(.string(existing?.share.shortGUID ?? Share.makeShortGUID()), Share.shortGUIDKey)
        }
        var list = share.participantList
        let ownerIdentity = UserIdentity(userRecordID: Record.ID(recordName: "_" + owner), lookupInfo: nil)
        list.removeAll { $0.role == .owner && $0.userIdentity.userRecordID != ownerIdentity.userRecordID }
        if !list.contains(where: { $0.role == .owner }) {
            list.insert(Share.Participant(userIdentity: ownerIdentity, role: .owner, permission: .readWrite, acceptanceStatus: .accepted), at: 0)
        }
        // What the owner cannot set: acceptance is the participant's own act. Keep the stored status.
        if let stored = existing?.share.participantList {
            for index in list.indices where list[index].role != .owner {
                if let before = stored.first(where: { $0.isSamePerson(as: list[index]) }),
                   list[index].acceptanceStatus != .removed, before.acceptanceStatus == .accepted {
                    list[index].acceptanceStatus = .accepted
                }
            }
            // A participant the owner dropped stays listed as removed, so their device learns it.
            for before in stored where before.role != .owner && !list.contains(where: { $0.isSamePerson(as: before) }) {
                var removed = before
                removed.acceptanceStatus = .removed
                list.append(removed)
            }
        }
        share.participantList = list
    }
}
