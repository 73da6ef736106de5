import Foundation
import Synchronization

// The outbox: creates and deletes made while the server is away, uploaded in order once it answers.
extension RemoteStore {
    /// Queues `items` (saves with their policy and the change tag they were made against; deletes
    /// with the tag of the version the user last saw, from the cache) and answers as the server would.
    func enqueue(_ items: [ModifyItem], context: StoreContext) throws -> [ModifyItemResult] {
        var queued: [Outbox.Item] = []
        var results: [ModifyItemResult] = []
        // The server's time as best known: a wrong local clock does not misplace a queued row.
        let now = client.serverClock.now()
        for item in items {
            switch item {
            case .save(let record, let rule):
                var state = record.snapshot
                var assets: [String: String] = [:]
                for (key, value) in state.fields {
                    guard case .asset(let asset) = value, let file = asset.fileURL else { continue }
                    // The caller may delete its file once the save returns: the cache keeps a copy.
                    let (digest, size) = try asset.contentDigest.map { ($0, asset.size ?? 0) } ?? assetCache.importFile(file)
                    assets[key] = digest
                    state.fields[key] = .asset(Asset(fileURL: assetCache.url(forDigest: digest), contentDigest: digest, size: size))
                }
                let tag = state.recordChangeTag
                // A create carries every field; an update what its policy writes (the changed keys, or all).
                var json = RemoteWire.recordJSON(record, allFields: tag == nil || rule.writesAllFields, receipts: [:])
                if case .object(var object) = json, case .object(var fields)? = object["fields"] {
                    for key in assets.keys { fields[key] = nil }
                    object["fields"] = .object(fields)
                    json = .object(object)
                }
                queued.append(Outbox.Item(sequence: 0, scope: context.scope, kind: tag == nil ? .create : .update,
                                          recordID: record.recordID, record: json, assets: assets, rule: rule, changeTag: tag,
                                          queued: now))
                state.changed = []
                if tag == nil {
                    state.creationDate = now
                    state.creatorUserRecordID = context.user.map { Record.ID(recordName: "_" + $0) }
                }
                state.modificationDate = now
                state.lastModifiedUserRecordID = context.user.map { Record.ID(recordName: "_" + $0) }
                results.append(ModifyItemResult(recordID: record.recordID,
                                                outcome: .saved(Record(recordType: record.recordType, recordID: record.recordID, state: state))))
            case .delete(let id, let tag):
                // The version on the user's screen: a record changed since then conflicts instead of vanishing.
                let seen = tag ?? (try? responses.cachedRecord(id.recordName, zone: id.zoneID.webServicesJSON, scope: context.scope))?
                    .flatMap { $0["recordChangeTag"]?.stringValue }
                queued.append(Outbox.Item(sequence: 0, scope: context.scope, kind: .delete, recordID: id, record: nil, assets: [:],
                                          changeTag: seen, queued: now))
                results.append(ModifyItemResult(recordID: id, outcome: .deleted))
            }
        }
        do {
            try outbox.append(queued)
        } catch where CloudError.isOutOfSpace(error) {
            // Never a silent drop: the caller hears that nothing was queued, and why.
            throw CloudError.diskFull(writing: "the outbox: the change was not queued and is not saved", cause: error)
        }
        startUploading()
        return results
    }

    /// Changes waiting in the outbox, oldest first (refused ones with their reason, conflicts with
    /// the server's copy); a save carries its record, assets pointing at the cached files.
    package func pendingChanges() throws -> [PendingChange] {
        try outbox.items().map { item in
            var record: Record?
            if case .object(var json)? = item.record {
                var fields = json["fields"]?.objectValue ?? [:]
                for (field, digest) in item.assets {
                    fields[field] = .object(["value": .object(["fileChecksum": .string(digest)]), "type": .string("ASSETID")])
                }
                json["fields"] = .object(fields)
                json["created"] = .object(["timestamp": .number(item.queued.timeIntervalSince1970 * 1000),
                                           "userRecordName": configuration.user.map { .string("_" + $0) } ?? .null])
                record = try? RemoteWire.serverRecord(.object(json), zoneID: item.recordID.zoneID, assetFile: cachedAsset)
            }
            let serverRecord = item.serverRecord.flatMap { try? RemoteWire.serverRecord($0, zoneID: item.recordID.zoneID, assetFile: cachedAsset) }
            return PendingChange(recordID: item.recordID, isDelete: item.kind == .delete, failure: item.failure, record: record,
                                 serverRecord: serverRecord, policy: item.rule.policy)
        }
    }

    /// Drops the changes of `recordID` that the server refused (a conflict or a permission error),
    /// leaving those still waiting: the user resolved them, by keeping the server's version or by a
    /// new save. Returns how many were dropped.
    @discardableResult
    package func discardRefusedChanges(of recordID: Record.ID) throws -> Int {
        let refused = try outbox.items().filter { $0.recordID == recordID && $0.failure != nil }
        for item in refused { try outbox.remove(item.sequence) }
        return refused.count
    }

    func startUploading() {
        uploader.start { [self] in
            let more = try await uploadNext()
            if !more {
                let waiters = uploadWaiters.withLock { waiters in
                    defer { waiters.removeAll() }
                    return Array(waiters.values)
                }
                for waiter in waiters { waiter.resume() }
            }
            return more
        }
    }

    /// Returns once nothing in the outbox waits to upload (refused changes stay, marked), or after
    /// `timeout`: a refresh after reconnecting reads the server once this machine's changes are on it.
    package func waitForUploads(upTo timeout: Duration) async {
        let id = UUID()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    uploadWaiters.withLock { $0[id] = continuation }
                    // Registered first: an upload finishing between the check and now still resumes it.
                    if (try? outbox.next()) == nil { uploadWaiters.withLock { $0.removeValue(forKey: id) }?.resume() }
                }
            }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
            uploadWaiters.withLock { $0.removeValue(forKey: id) }?.resume()
        }
    }

    /// Uploads the oldest waiting change. Returns false when nothing is left.
    ///
    /// A conflict (the server's record changed since the change was made, or a create's name is
    /// taken by different content) is settled by the change's save policy:
    /// `ifServerRecordUnchanged` keeps it in the outbox, marked, with the server's copy;
    /// `changedKeys` writes its keys onto the server's copy (an update against the server's tag,
    /// tried again if that changes too); `allKeys` replaces the server's copy. A delete of a changed
    /// record is kept, marked, with the server's copy.
    /// - Throws: network and sign-in errors, which leave the change in place for a later attempt.
    func uploadNext() async throws -> Bool {
        guard let item = try outbox.next() else { return false }
        let context = StoreContext(scope: item.scope, user: configuration.user)
        var record: [String: JSONValue]
        var operationType: String
        switch item.kind {
        case .create, .update:
            guard case .object(let json)? = item.record else {
                try outbox.markFailed(item.sequence, reason: "The queued record could not be read back")
                return true
            }
            record = json
            var fields = record["fields"]?.objectValue ?? [:]
            for (field, digest) in item.assets.sorted(by: { $0.key < $1.key }) {
                fields[field] = try await uploadCachedAsset(digest: digest, field: field, recordType: record["recordType"]?.stringValue ?? "",
                                                     recordName: item.recordID.recordName, context: context)
            }
            record["fields"] = .object(fields)
            record["recordChangeTag"] = item.changeTag.map(JSONValue.string)
            operationType = item.kind == .create ? "create" : (item.rule.writesAllFields ? "replace" : "update")
        case .delete:
            record = ["recordName": .string(item.recordID.recordName), "zoneID": item.recordID.zoneID.webServicesJSON]
            record["recordChangeTag"] = item.changeTag.map(JSONValue.string)
            operationType = item.changeTag == nil ? "forceDelete" : "delete"
        }
        // A policy that settles conflicts sends again after one; a few rounds at most.
        for _ in 0..<5 {
            let (result, error) = try await sendQueued(operationType, record, item: item)
            guard let error else {
                try outbox.remove(item.sequence)
                return true
            }
            let conflict = error.code == .serverRecordChanged || (item.kind == .create && error.code == .constraintViolation)
            guard conflict else {
                if error.code == .unknownItem && item.kind == .delete {
                    // Already gone: an earlier attempt landed (a crash or a lost answer after the commit).
                    try outbox.remove(item.sequence)
                } else {
                    try outbox.markFailed(item.sequence, reason: error.message)
                }
                return true
            }
            var server = result["serverRecord"].flatMap { $0.objectValue == nil ? nil : $0 }
            if server == nil { server = try await lookUpRaw(item.recordID, context: context) }
            if item.kind != .delete, let server, Self.holds(server, item, record, user: configuration.user) {
                // The server already has exactly this: an earlier attempt landed.
                try outbox.remove(item.sequence)
                return true
            }
            guard item.kind != .delete, let server, let serverTag = server["recordChangeTag"]?.stringValue else {
                try outbox.markFailed(item.sequence, reason: Self.conflictReason(item, server), serverRecord: server)
                return true
            }
            switch item.rule.policy {
            case .ifServerRecordUnchanged:
                try outbox.markFailed(item.sequence, reason: Self.conflictReason(item, server), serverRecord: server)
                return true
            case .changedKeys:
                // This change's keys onto the server's version.
                record["recordChangeTag"] = .string(serverTag)
                operationType = "update"
            case .allKeys:
                record["recordChangeTag"] = nil
                operationType = "forceReplace"
            }
        }
        try outbox.markFailed(item.sequence, reason: "The record kept changing on the server while this change uploaded")
        return true
    }

    /// Sends one queued operation: the item's result and its error, if any.
    private func sendQueued(_ operationType: String, _ record: [String: JSONValue], item: Outbox.Item) async throws -> (JSONValue, CloudError?) {
        noteOwnChanges([item.recordID.recordName])
        let operation = JSONValue.object(["operationType": .string(operationType), "record": .object(record)])
        // Safe to repeat: a repeated create answers EXISTS with the same content, a repeated
        // conditional write a conflict holding it, a repeated delete NOT_FOUND.
        let answer: JSONValue
        do {
            answer = try await reaching {
                try await client.database(item.scope, "records/modify", body: .object(["operations": .array([operation])]), idempotent: true)
            }
        } catch let error as CloudError where error.code == .networkUnavailable {
            forgetOwnChanges([item.recordID.recordName])
            throw error
        }
        noteChange()
        let result = answer.at("records", "0") ?? .null
        let error = Self.itemError(result)
        if error != nil { forgetOwnChanges([item.recordID.recordName]) }
        return (result, error)
    }

    /// The server's record as JSON (`records/lookup`), `nil` when it has none.
    private func lookUpRaw(_ id: Record.ID, context: StoreContext) async throws -> JSONValue? {
        let body = JSONValue.object(["records": .array([.object(["recordName": .string(id.recordName)])]), "zoneID": id.zoneID.webServicesJSON])
        let answer = try await reaching { try await client.database(context.scope, "records/lookup", body: body, idempotent: true) }
        guard let item = answer.at("records", "0"), Self.itemError(item) == nil else { return nil }
        return item
    }

    /// Whether the server's record already holds every field this save writes, made by `user`
    /// (a create's creator, an update's last modifier): the save (or an earlier attempt of it) landed.
    static func holds(_ server: JSONValue, _ item: Outbox.Item, _ record: [String: JSONValue], user: String?) -> Bool {
        if let user {
            let by = server.at(item.kind == .create ? "created" : "modified", "userRecordName")?.stringValue
            guard by == nil || by == "_" + user else { return false }
        }
        guard let written = record["fields"]?.objectValue, let have = server["fields"]?.objectValue else { return false }
        for (key, field) in written {
            if let digest = item.assets[key] {
                guard have[key]?.at("value", "fileChecksum")?.stringValue == digest else { return false }
            } else if (field["value"] ?? .null) != (have[key]?["value"] ?? .null) {
                return false
            }
        }
        return true
    }

    /// The line shown on the row of a change kept after a conflict.
    static func conflictReason(_ item: Outbox.Item, _ server: JSONValue?) -> String {
        let who = server?.at("modified", "userRecordName")?.stringValue.map { " by " + ($0.hasPrefix("_") ? String($0.dropFirst()) : $0) } ?? ""
        switch item.kind {
        case .delete where server == nil: return "Conflict: the record is gone from the server"
        case .delete: return "Conflict: changed on the server\(who) since it was deleted here; not deleted"
        case .create: return "Conflict: the server has another record with this name\(who)"
        case .update: return "Conflict: changed on the server\(who) since it was read"
        }
    }
}

/// A change a remote container made offline that has not reached the server yet.
public struct PendingChange: Sendable {
    public var recordID: Record.ID
    public var isDelete: Bool
    /// Why the server refused it; `nil` while it waits.
    public var failure: String?
    /// A save's record, as it will be saved.
    public var record: Record?
    /// After a conflict: the server's version, to show or to merge with.
    public var serverRecord: Record?
    /// A save's policy, which decided what a conflict did.
    public var policy: ModifyRecordsOperation.RecordSavePolicy = .ifServerRecordUnchanged

    /// Whether it was kept because the server's record changed (or a create's name was taken by
    /// other content): ``serverRecord`` is that version.
    public var isConflict: Bool { serverRecord != nil }
}
