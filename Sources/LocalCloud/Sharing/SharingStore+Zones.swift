import Foundation

extension SharingStore {
    // MARK: Zones

    func saveZones(_ zones: [RecordZone], context: StoreContext) async throws -> [RecordZone.ID: Result<RecordZone, CloudError>] {
        guard context.scope == .shared else { return try await base.saveZones(zones, context: context) }
        var results: [RecordZone.ID: Result<RecordZone, CloudError>] = [:]
        for zone in zones {
            results[zone.zoneID] = .failure(CloudError(.permissionFailure,
                "The shared database holds other people's zones: create zones in your private database"))
        }
        return results
    }

    func fetchZones(_ ids: [RecordZone.ID]?, context: StoreContext) async throws -> [RecordZone.ID: Result<RecordZone, CloudError>] {
        guard context.scope == .shared else { return try await base.fetchZones(ids, context: context) }
        guard let user = context.user else {
            throw CloudError(.notAuthenticated, "No account: the shared database needs a signed-in user")
        }
        var results: [RecordZone.ID: Result<RecordZone, CloudError>] = [:]
        guard let ids else {
            for zone in await ShareRules.sharedZones(user: user, shares: try shares()) {
                let id = RecordZone.ID(zoneName: zone.zoneName, ownerName: "_" + zone.owner)
                results[id] = .success(RecordZone(zoneID: id))
            }
            return results
        }
        for id in ids {
            do {
                _ = try await sharedAccess(id, context: context)
                results[id] = .success(RecordZone(zoneID: id))
            } catch let error as CloudError {
                results[id] = .failure(error)
            }
        }
        return results
    }

    /// Deleting a zone of the shared database leaves its shares, as in CloudKit; the owner's data stays.
    func deleteZones(_ ids: [RecordZone.ID], context: StoreContext) async throws -> [RecordZone.ID: Result<Void, CloudError>] {
        guard context.scope == .shared else { return try await base.deleteZones(ids, context: context) }
        var results: [RecordZone.ID: Result<Void, CloudError>] = [:]
        for id in ids {
            do {
                _ = try await sharedAccess(id, context: context)
                let user = context.user ?? ""
                let owner = Self.userName(id.ownerName)
                for stored in try await shares() where stored.owner == owner && stored.zoneName == id.zoneName {
                    if ShareRules.participant(user, in: stored.share) != nil {
                        _ = try await updateParticipant(user, in: stored) { $0.acceptanceStatus = .removed }
                    }
                }
                results[id] = .success(())
            } catch let error as CloudError {
                results[id] = .failure(error)
            }
        }
        return results
    }

    /// Changes one participant entry of a stored share and saves it as its owner, retrying when
    /// the owner saved the share meanwhile. Returns the saved share.
    func updateParticipant(_ user: String, in stored: StoredShare, add: Share.Participant? = nil,
                           _ change: (inout Share.Participant) -> Void) async throws -> Share {
        let ownerContext = StoreContext(scope: .private, user: stored.owner)
        var current = stored.share
        for _ in 0..<5 {
            var list = current.participantList
            if let index = list.firstIndex(where: { $0.userIdentity.userRecordID?.recordName == "_" + user }) {
                change(&list[index])
            } else if let add {
                var entry = add
                change(&entry)
                list.append(entry)
            } else {
                throw CloudError(.participantMayNeedVerification, "You are not a participant of this share")
            }
            let copy = Share(recordID: current.recordID, state: current.snapshot)
            copy.participantList = list
            let record = copy.storedRecord()
            let results = try await base.modify([.save(record, SaveRule(policy: .ifServerRecordUnchanged))], atomically: true, context: ownerContext)
            switch results.first?.outcome {
            case .saved(let saved)?:
                return Share.fromStored(saved) ?? copy
            case .failed(let error, _)? where error.code == .serverRecordChanged:
                let id = current.recordID
                guard let fresh = try await base.fetchRecords([id], desiredKeys: nil, context: ownerContext)[id]?.get(),
                      let share = Share.fromStored(fresh) else {
                    throw CloudError(.unknownItem, "The share no longer exists")
                }
                current = share
            case .failed(let error, _)?:
                throw error
            default:
                throw CloudError(.internalError, "The share's save produced no result")
            }
        }
        throw CloudError(.zoneBusy, "The share is being changed by its owner: try again")
    }

    // MARK: Changes

    func recordZoneChanges(in zoneID: RecordZone.ID, since token: ServerChangeToken?, desiredKeys: [String]?,
                           limit: Int, context: StoreContext) async throws -> ZoneChangesPage {
        guard context.scope == .shared else {
            var page = try await base.recordZoneChanges(in: zoneID, since: token, desiredKeys: desiredKeys, limit: limit, context: context)
            if context.scope == .private {
                page.modified = page.modified.map { ($0.0, $0.1.map { presented($0, viewer: context.user) }) }
            }
            return page
        }
        // Checked on every call, so an open token stops working the moment access ends.
        let access = try await sharedAccess(zoneID, context: context)
        let ownerZone = RecordZone.ID(zoneName: zoneID.zoneName)
        let page = try await base.recordZoneChanges(in: ownerZone, since: token, desiredKeys: Self.withParent(desiredKeys, for: access.grant),
                                              limit: limit, context: access.context)
        var shared = ZoneChangesPage(token: page.token, moreComing: page.moreComing)
        var known: [String: String?] = [:]
        for (id, result) in page.modified {
            let sharedID = Record.ID(recordName: id.recordName, zoneID: zoneID)
            switch result {
            case .success(let record):
                let permission = try await self.permission(on: record, grant: access.grant, context: access.context, known: &known)
                guard permission == .readOnly || permission == .readWrite else { continue }
                shared.modified.append((sharedID, .success(presented(record.relocated(to: zoneID), viewer: context.user))))
            case .failure(let error):
                shared.modified.append((sharedID, .failure(Self.relabeled(error, sharedID))))
            }
        }
        for (id, type) in page.deleted {
            guard try await covers(deletionOf: id.recordName, parents: page.deletedParents, grant: access.grant,
                                   zoneID: ownerZone, context: access.context, known: &known) else { continue }
            shared.deleted.append((Record.ID(recordName: id.recordName, zoneID: zoneID), type))
        }
        return shared
    }

    /// Whether the grant covered a record that was deleted: its chain starts at the parent its log
    /// row kept (`parents`; "" for none). A hierarchy share's participant hears only of deletions
    /// inside the hierarchy. A row logged before the log kept parents is reported, as it was.
    func covers(deletionOf recordName: String, parents: [String: String], grant: ShareRules.Grant, zoneID: RecordZone.ID,
                context: StoreContext, known: inout [String: String?]) async throws -> Bool {
        if grant.coversWholeZone && grant.roots.isEmpty || grant.roots[recordName] != nil { return true }
        guard let logged = parents[recordName] else { return true }
        // Records deleted together (a list and its entries) are gone: their logged parents stand in.
        for (name, parent) in parents where known[name] == nil { known[name] = .some(parent.isEmpty ? nil : parent) }
        let chain = try await ancestors(recordName: recordName, parent: logged.isEmpty ? nil : logged, zoneID: zoneID,
                                        context: context, roots: grant.roots, known: &known)
        let permission = grant.permission(recordName: recordName, ancestors: chain)
        return permission == .readOnly || permission == .readWrite
    }

    /// The shared database's zones that changed since the token: new to the user, or with record
    /// changes; zones the user can no longer see are reported deleted.
    func databaseChanges(since token: ServerChangeToken?, limit: Int, context: StoreContext) async throws -> DatabaseChangesPage {
        guard context.scope == .shared else { return try await base.databaseChanges(since: token, limit: limit, context: context) }
        guard let user = context.user else {
            throw CloudError(.notAuthenticated, "No account: the shared database needs a signed-in user")
        }
        var now = try await base.currentChangeToken()
        try token?.check(epoch: now.epoch, floor: 0)
        let zones = await ShareRules.sharedZones(user: user, shares: try shares())
        let keys = zones.map { $0.owner + "/" + $0.zoneName }
        let before = Set(token?.sharedZones ?? [])
        var page = DatabaseChangesPage(token: now, moreComing: false)
        for (zone, key) in zip(zones, keys) {
            let id = RecordZone.ID(zoneName: zone.zoneName, ownerName: "_" + zone.owner)
            guard let token, before.contains(key) else {
                page.changedZones.append(id)
                continue
            }
            // Only changes the user may see count: a hierarchy share's participant is not told of
            // a zone whose changes all fell outside the hierarchy. Pages until one is found.
            var since = ServerChangeToken(epoch: token.epoch, sequence: token.sequence)
            while true {
                let changes = try await recordZoneChanges(in: id, since: since, desiredKeys: [], limit: 200, context: context)
                if !changes.modified.isEmpty || !changes.deleted.isEmpty {
                    page.changedZones.append(id)
                    break
                }
                guard changes.moreComing, changes.token.sequence > since.sequence else { break }
                since = ServerChangeToken(epoch: changes.token.epoch, sequence: changes.token.sequence)
            }
        }
        for key in before.subtracting(keys).sorted() {
            let parts = key.split(separator: "/", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            page.deletedZones.append(RecordZone.ID(zoneName: parts[1], ownerName: "_" + parts[0]))
        }
        now.sharedZones = keys
        page.token = now
        return page
    }
}
