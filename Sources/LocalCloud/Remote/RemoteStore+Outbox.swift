import Foundation
import Synchronization

// The outbox: creates and deletes made while the server is away, uploaded in order once it answers.
extension RemoteStore {
    /// Queues `items` when every one can wait (a create of a new record, an unconditional delete)
    /// and answers as the server would; `nil` when some item needs the server now.
    func enqueue(_ items: [ModifyItem], context: StoreContext) throws -> [ModifyItemResult]? {
        var queued: [Outbox.Item] = []
        var results: [ModifyItemResult] = []
        let now = Date()
        for item in items {
            switch item {
            case .save(let record, let rule):
                guard rule.policy == .ifServerRecordUnchanged, !rule.replacesFields, record.snapshot.recordChangeTag == nil else { return nil }
                var state = record.snapshot
                var assets: [String: String] = [:]
                for (key, value) in state.fields {
                    guard case .asset(let asset) = value, let file = asset.fileURL else { continue }
                    // The caller may delete its file once the save returns: the cache keeps a copy.
                    let (digest, size) = try asset.contentDigest.map { ($0, asset.size ?? 0) } ?? assetCache.importFile(file)
                    assets[key] = digest
                    state.fields[key] = .asset(Asset(fileURL: assetCache.url(forDigest: digest), contentDigest: digest, size: size))
                }
                var json = RemoteWire.recordJSON(record, allFields: true, receipts: [:])
                if case .object(var object) = json, case .object(var fields)? = object["fields"] {
                    for key in assets.keys { fields[key] = nil }
                    object["fields"] = .object(fields)
                    json = .object(object)
                }
                queued.append(Outbox.Item(sequence: 0, scope: context.scope, kind: .create, recordID: record.recordID,
                                          record: json, assets: assets))
                state.changed = []
                state.creationDate = now
                state.modificationDate = now
                state.creatorUserRecordID = context.user.map { Record.ID(recordName: "_" + $0) }
                state.lastModifiedUserRecordID = state.creatorUserRecordID
                results.append(ModifyItemResult(recordID: record.recordID,
                                                outcome: .saved(Record(recordType: record.recordType, recordID: record.recordID, state: state))))
            case .delete(let id, let tag):
                guard tag == nil else { return nil }
                queued.append(Outbox.Item(sequence: 0, scope: context.scope, kind: .delete, recordID: id, record: nil, assets: [:]))
                results.append(ModifyItemResult(recordID: id, outcome: .deleted))
            }
        }
        try outbox.append(queued)
        noteOwnChanges(items.map(\.recordID.recordName))
        startUploading()
        return results
    }

    /// Changes waiting in the outbox, oldest first (refused ones with their reason); a create
    /// carries its record, assets pointing at the cached files.
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
            return PendingChange(recordID: item.recordID, isDelete: item.kind == .delete, failure: item.failure, record: record)
        }
    }

    func startUploading() {
        uploader.start { [self] in try uploadNext() }
    }

    /// Uploads the oldest waiting change. Returns false when nothing is left.
    /// - Throws: network and sign-in errors, which leave the change in place for a later attempt.
    func uploadNext() throws -> Bool {
        guard let item = try outbox.next() else { return false }
        let context = StoreContext(scope: item.scope, user: configuration.user)
        let operation: JSONValue
        switch item.kind {
        case .create:
            guard case .object(var record)? = item.record else {
                try outbox.markFailed(item.sequence, reason: "The queued record could not be read back")
                return true
            }
            var fields = record["fields"]?.objectValue ?? [:]
            for (field, digest) in item.assets.sorted(by: { $0.key < $1.key }) {
                fields[field] = try uploadCachedAsset(digest: digest, field: field, recordType: record["recordType"]?.stringValue ?? "",
                                                     recordName: item.recordID.recordName, context: context)
            }
            record["fields"] = .object(fields)
            operation = .object(["operationType": .string("create"), "record": .object(record)])
        case .delete:
            operation = .object(["operationType": .string("forceDelete"), "record": .object([
                "recordName": .string(item.recordID.recordName), "zoneID": item.recordID.zoneID.webServicesJSON,
            ])])
        }
        noteOwnChanges([item.recordID.recordName])
        // Idempotent by construction: a repeated create answers EXISTS, a repeated delete NOT_FOUND.
        let answer = try reaching {
            try client.database(item.scope, "records/modify", body: .object(["operations": .array([operation])]), idempotent: true)
        }
        noteChange()
        let result = answer.at("records", "0") ?? .null
        switch Self.itemError(result)?.code {
        case nil:
            try outbox.remove(item.sequence)
        case .constraintViolation? where item.kind == .create, .unknownItem? where item.kind == .delete:
            // An earlier attempt landed (a crash or a lost answer after the server's commit).
            try outbox.remove(item.sequence)
        case .some:
            let reason = Self.itemError(result)?.message ?? "refused"
            try outbox.markFailed(item.sequence, reason: reason)
        }
        return true
    }
}

/// A change a remote container made offline that has not reached the server yet.
package struct PendingChange: Sendable {
    package var recordID: Record.ID
    package var isDelete: Bool
    /// Why the server refused it; `nil` while it waits.
    package var failure: String?
    /// A create's record, as it will be saved.
    package var record: Record?
}

/// The outbox's one upload thread: started when there is something to send, it sends changes
/// one at a time and backs off (up to 30 s) while the server cannot be reached.
final class OutboxUploader: Sendable {
    private struct State {
        var running = false
        var stopped = false
        /// Set by `start` while running: try again now rather than after the backoff.
        var nudged = false
    }

    private let state = Mutex(State())

    /// Runs `uploadNext` until it returns false; a thrown error waits, then retries.
    func start(_ uploadNext: @escaping @Sendable () throws -> Bool) {
        let startThread = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            if state.running {
                state.nudged = true
                return false
            }
            state.running = true
            return true
        }
        guard startThread else { return }
        let thread = Thread { [self] in
            var failures = 0
            while !state.withLock({ $0.stopped }) {
                do {
                    guard try uploadNext() else { break }
                    failures = 0
                } catch {
                    failures += 1
                    let wait = min(30.0, 0.5 * pow(2, Double(min(failures, 6))))
                    let deadline = Date().addingTimeInterval(wait)
                    while Date() < deadline {
                        let wake = state.withLock { state in
                            defer { state.nudged = false }
                            return state.stopped || state.nudged
                        }
                        if wake { break }
                        Thread.sleep(forTimeInterval: 0.05)
                    }
                }
            }
            state.withLock { $0.running = false }
        }
        thread.name = "LocalCloud outbox"
        thread.start()
    }

    func stop() {
        state.withLock { $0.stopped = true }
    }
}
