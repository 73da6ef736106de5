import Foundation

extension SharingStore {
    // MARK: Fetch

    func fetchRecords(_ ids: [Record.ID], desiredKeys: [String]?, context: StoreContext) async throws -> [Record.ID: Result<Record, CloudError>] {
        guard context.scope == .shared else {
            let results = try await base.fetchRecords(ids, desiredKeys: desiredKeys, context: context)
            guard context.scope == .private else { return results }
            return results.mapValues { $0.map { presented($0, viewer: context.user) } }
        }
        var results: [Record.ID: Result<Record, CloudError>] = [:]
        for (zoneID, zoneIDs) in Dictionary(grouping: ids, by: \.zoneID) {
            let access: (context: StoreContext, grant: ShareRules.Grant)
            do {
                access = try await sharedAccess(zoneID, context: context)
            } catch let error as CloudError {
                for id in zoneIDs { results[id] = .failure(CloudError(error.code, error.message, recordID: id)) }
                continue
            }
            let ownerIDs = zoneIDs.map { Record.ID(recordName: $0.recordName, zoneID: RecordZone.ID(zoneName: zoneID.zoneName)) }
            let fetched = try await base.fetchRecords(ownerIDs, desiredKeys: Self.withParent(desiredKeys, for: access.grant), context: access.context)
            var known: [String: String?] = [:]
            for (id, ownerID) in zip(zoneIDs, ownerIDs) {
                guard let result = fetched[ownerID] else { continue }
                switch result {
                case .failure(let error):
                    results[id] = .failure(Self.relabeled(error, id))
                case .success(let record):
                    let permission = try await self.permission(on: record, grant: access.grant, context: access.context, known: &known)
                    if permission == .readOnly || permission == .readWrite {
                        results[id] = .success(presented(record.relocated(to: zoneID), viewer: context.user))
                    } else {
                        // Outside every share the user is in: as if it did not exist.
                        results[id] = .failure(CloudError(.unknownItem, "Record not found: \(id.recordName)", recordID: id))
                    }
                }
            }
        }
        return results
    }

    // MARK: Query

    func queryRecords(_ request: QueryRequest, context: StoreContext) async throws -> QueryPage {
        guard context.scope == .shared else {
            let page = try await base.queryRecords(request, context: context)
            guard context.scope == .private else { return page }
            return QueryPage(records: page.records.map { presented($0, viewer: context.user) }, cursor: page.cursor)
        }
        let access = try await sharedAccess(request.zoneID, context: context)
        var ownerRequest = request
        ownerRequest.desiredKeys = Self.withParent(request.desiredKeys, for: access.grant)
        let page = try await base.queryRecords(ownerRequest, context: access.context)
        var known: [String: String?] = [:]
        var records: [Record] = []
        records.reserveCapacity(page.records.count)
        for record in page.records {
            // Most rows are decided without a read; the rest read their parent chain.
            var permission = Self.immediatePermission(on: record, grant: access.grant)
            if permission == nil {
                permission = try await self.permission(on: record, grant: access.grant, context: access.context, known: &known)
            }
            guard permission == .readOnly || permission == .readWrite else { continue }
            records.append(presented(Self.shared(record, in: request.zoneID), viewer: context.user))
        }
        return QueryPage(records: records, cursor: page.cursor)
    }

    // MARK: Modify

    func modify(_ items: [ModifyItem], atomically: Bool, context: StoreContext) async throws -> [ModifyItemResult] {
        switch context.scope {
        case .public: return try await base.modify(items, atomically: atomically, context: context)
        case .private: return try await modifyPrivate(items, atomically: atomically, context: context)
        case .shared: return try await modifyShared(items, atomically: atomically, context: context)
        }
    }

    /// The shared database: each item checked against the share rules, then written as the owner's.
    private func modifyShared(_ items: [ModifyItem], atomically: Bool, context: StoreContext) async throws -> [ModifyItemResult] {
        var results = [ModifyItemResult?](repeating: nil, count: items.count)
        var groups: [String: (context: StoreContext, zoneID: RecordZone.ID, indexes: [Int], items: [ModifyItem])] = [:]
        var known: [RecordZone.ID: [String: String?]] = [:]
        for (index, item) in items.enumerated() {
            let zoneID = item.recordID.zoneID
            do {
                let access = try await sharedAccess(zoneID, context: context)
                let ownerID = Record.ID(recordName: item.recordID.recordName, zoneID: RecordZone.ID(zoneName: zoneID.zoneName))
                var chain = known[zoneID] ?? [:]
                let permission: Share.ParticipantPermission
                let ownerItem: ModifyItem
                switch item {
                case let .save(record, rule):
                    if record is Share || record.recordType == Share.recordType || record.recordType == Share.storedRecordType {
                        throw CloudError(.permissionFailure, "Only the share's owner can change a share", recordID: item.recordID)
                    }
                    let stored = Record(recordType: record.recordType, recordID: ownerID, state: record.snapshot)
                    // An existing record keeps its place; a new one is covered through its own parent.
                    let existing = try? await base.fetchRecords([ownerID], desiredKeys: [Record.parentKey], context: access.context)[ownerID]?.get()
                    permission = try await self.permission(on: existing ?? stored, grant: access.grant, context: access.context, known: &chain)
                    if let existing, existing.parent != stored.parent, record.snapshot.changed.contains(Record.parentKey) {
                        // Moving a record needs write access where it goes, too.
                        let target = try await self.permission(on: stored, grant: access.grant, context: access.context, known: &chain)
                        guard target == .readWrite else {
                            throw CloudError(.permissionFailure, "You can't move this record outside the share", recordID: item.recordID)
                        }
                    }
                    ownerItem = .save(stored, rule)
                case let .delete(_, tag):
                    guard let existing = try await base.fetchRecords([ownerID], desiredKeys: [Record.parentKey], context: access.context)[ownerID]?.get()
                    else {
                        throw CloudError(.unknownItem, "Record not found: \(item.recordID.recordName)", recordID: item.recordID)
                    }
                    if existing.recordType == Share.storedRecordType {
                        throw CloudError(.permissionFailure, "Only the share's owner can delete a share", recordID: item.recordID)
                    }
                    permission = try await self.permission(on: existing, grant: access.grant, context: access.context, known: &chain)
                    ownerItem = .delete(ownerID, ifChangeTag: tag)
                }
                known[zoneID] = chain
                switch permission {
                case .readWrite: break
                case .readOnly:
                    throw CloudError(.permissionFailure, "Read-only share: you can't change records shared with you read-only",
                                     recordID: item.recordID)
                default:
                    throw CloudError(.permissionFailure, "This record is not in a share you can change", recordID: item.recordID)
                }
                let key = zoneID.ownerName + "\u{0}" + zoneID.zoneName
                var group = groups[key] ?? (access.context, zoneID, [], [])
                group.indexes.append(index)
                group.items.append(ownerItem)
                groups[key] = group
            } catch let error as CloudError {
                results[index] = ModifyItemResult(recordID: item.recordID, outcome: .failed(error, isDelete: item.isDelete))
            }
        }
        if atomically, results.contains(where: { $0 != nil }) {
            return items.enumerated().map { index, item in
                results[index] ?? ModifyItemResult(recordID: item.recordID, outcome: .failed(
                    CloudError(.batchRequestFailed, "Not saved: another item in the atomic batch failed", recordID: item.recordID),
                    isDelete: item.isDelete))
            }
        }
        for group in groups.values {
            let written = try await base.modify(group.items, atomically: atomically, context: group.context)
            for (index, result) in zip(group.indexes, written) {
                let outcome: ModifyItemResult.Outcome
                switch result.outcome {
                case .saved(let record): outcome = .saved(presented(record.relocated(to: group.zoneID), viewer: context.user))
                case .deleted: outcome = .deleted
                case .failed(let error, let isDelete):
                    outcome = .failed(Self.relabeled(error, items[index].recordID), isDelete: isDelete)
                }
                results[index] = ModifyItemResult(recordID: items[index].recordID, outcome: outcome)
            }
        }
        return results.enumerated().map { index, result in
            result ?? ModifyItemResult(recordID: items[index].recordID,
                                       outcome: .failed(CloudError(.internalError, "No result"), isDelete: items[index].isDelete))
        }
    }
}

extension SharingStore {
    /// A store's error about an owner-side record, told about the shared-database record.
    static func relabeled(_ error: CloudError, _ id: Record.ID) -> CloudError {
        var error = error
        error.recordID = id
        error.serverRecord = error.serverRecord?.relocated(to: id.zoneID)
        error.clientRecord = error.clientRecord?.relocated(to: id.zoneID)
        return error
    }
}
