import Foundation

// records/lookup, records/modify and records/query.
extension RemoteStore {
    package func fetchRecords(_ ids: [Record.ID], desiredKeys: [String]?, context: StoreContext) async throws -> [Record.ID: Result<Record, CloudError>] {
        var results: [Record.ID: Result<Record, CloudError>] = [:]
        // One request per zone: records/lookup takes one zoneID for its records.
        for (zone, zoneIDs) in Dictionary(grouping: ids, by: \.zoneID) {
            var body: [String: JSONValue] = [
                "records": .array(zoneIDs.map { .object(["recordName": .string($0.recordName)]) }),
                "zoneID": zone.webServicesJSON,
            ]
            if let desiredKeys { body["desiredKeys"] = .array(desiredKeys.map(JSONValue.string)) }
            let items: [JSONValue]
            do {
                await ensureCacheToken(context.scope)
                let answer = try await reaching { try await client.database(context.scope, "records/lookup", body: .object(body), idempotent: true) }
                items = try Self.items(answer, "records", expected: zoneIDs.count)
                for (id, item) in zip(zoneIDs, items) where Self.itemError(item) == nil {
                    try? responses.store(item, for: Self.cacheKey("record", context, ["zone": zone.webServicesJSON,
                        "recordName": .string(id.recordName), "desiredKeys": body["desiredKeys"] ?? .null]))
                }
            } catch let error as CloudError where Self.isOffline(error) {
                // Away from the server: what was read before, for the records that were; the rest fail with the network error.
                for id in zoneIDs {
                    let key = Self.cacheKey("record", context, ["zone": zone.webServicesJSON, "recordName": .string(id.recordName),
                                                                "desiredKeys": body["desiredKeys"] ?? .null])
                    if let cached = try? responses.value(for: key) {
                        results[id] = .success(try RemoteWire.serverRecord(cached, zoneID: zone, assetFile: cachedAsset))
                    } else if let pending = pendingRecord(id) {
                        results[id] = .success(pending)
                    } else {
                        var failure = error
                        failure.recordID = id
                        results[id] = .failure(failure)
                    }
                }
                continue
            }
            for (id, item) in zip(zoneIDs, items) {
                if var error = Self.itemError(item) {
                    error.recordID = id
                    // Saved offline and not uploaded yet: the outbox has it.
                    results[id] = error.code == .unknownItem ? pendingRecord(id).map { .success($0) } ?? .failure(error) : .failure(error)
                } else {
                    results[id] = await .success(try record(item, zone: zone))
                }
            }
        }
        return results
    }

    /// A create waiting in the outbox, as it will be saved.
    func pendingRecord(_ id: Record.ID) -> Record? {
        (try? pendingChanges())?.first { $0.recordID == id && !$0.isDelete }?.record
    }

    /// A cache key: what was asked, of which database, by whom.
    static func cacheKey(_ kind: String, _ context: StoreContext, _ request: [String: JSONValue]) -> JSONValue {
        .object(["kind": .string(kind), "scope": .int(Int64(context.scope.rawValue)),
                 "user": context.user.map(JSONValue.string) ?? .null, "request": .object(request)])
    }

    /// Runs a request and notes whether the server answered. The first answer after a network
    /// failure starts the catch-up and the outbox's upload at once.
    func reaching<T>(_ request: () async throws -> T) async throws -> T {
        do {
            let value = try await request()
            noteReachable(true)
            return value
        } catch let error as CloudError where Self.isOffline(error) {
            noteReachable(false)
            throw error
        }
    }

    package func queryRecords(_ request: QueryRequest, context: StoreContext) async throws -> QueryPage {
        let body = try Self.queryBody(request)
        // Pages are kept (later ones by their continuation marker, which names the row they follow),
        // so the list can be drawn and scrolled while the server is away.
        let key = Self.cacheKey("page", context, body)
        let answer: JSONValue
        do {
            await ensureCacheToken(context.scope)
            answer = try await reaching { try await client.database(context.scope, "records/query", body: .object(body), idempotent: true) }
            try? responses.store(answer, for: key)
        } catch let error as CloudError where Self.isOffline(error) {
            // A search as you type looks through every cached page (its own earlier answer among
            // them) and the outbox, so restaurants saved while away are found too.
            if let found = try searchCachedRecords(request, context: context) { return found }
            guard let cached = try cachedQueryPage(request, key: key) else { throw error }
            return cached
        }
        // The page's assets first (the only waits), then its records, decoded in one pass.
        try await downloadAssets(of: RemoteWire.pageItems(answer))
        let records = try RemoteWire.pageRecords(answer, zoneID: request.zoneID) {
            try RemoteWire.serverRecord($0, zoneID: request.zoneID, assetFile: cachedAsset)
        }
        let cursor = answer["continuationMarker"]?.stringValue.map { request.cursor(continuationMarker: $0) }
        return QueryPage(records: records, cursor: cursor)
    }

    /// The page this query last answered, from the cache alone (no request), or `nil` when it was
    /// never read: what a launch draws at once while the server is asked.
    package func cachedQueryRecords(_ request: QueryRequest, context: StoreContext) throws -> QueryPage? {
        try cachedQueryPage(request, key: Self.cacheKey("page", context, try Self.queryBody(request)))
    }

    private func cachedQueryPage(_ request: QueryRequest, key: JSONValue) throws -> QueryPage? {
        guard let cached = try? responses.value(for: key) else { return nil }
        let records = try (cached["records"]?.arrayValue ?? []).filter { Self.itemError($0) == nil }.map {
            try RemoteWire.serverRecord($0, zoneID: request.zoneID, assetFile: cachedAsset)
        }
        return QueryPage(records: records, cursor: cached["continuationMarker"]?.stringValue.map { request.cursor(continuationMarker: $0) })
    }

    /// A `records/query` body; its bytes are also the page's cache key.
    private static func queryBody(_ request: QueryRequest) throws -> [String: JSONValue] {
        var body: [String: JSONValue] = [
            "zoneID": request.zoneID.webServicesJSON, "resultsLimit": .int(Int64(min(request.limit, 200))),
        ]
        if let marker = request.continuationMarker {
            body["continuationMarker"] = .string(marker)
        } else {
            body["query"] = try RemoteWire.queryJSON(request)
        }
        if let desiredKeys = request.desiredKeys { body["desiredKeys"] = .array(desiredKeys.map(JSONValue.string)) }
        return body
    }

    package func modify(_ items: [ModifyItem], atomically: Bool, context: StoreContext) async throws -> [ModifyItemResult] {
        guard !items.isEmpty else { return [] }
        do {
            return try await reaching { try await send(items, atomically: atomically, context: context) }
        } catch let error as CloudError where Self.isOffline(error) {
            // Nothing reached the server: no notification will come for these.
            if error.code == .networkUnavailable { forgetOwnChanges(items.map(\.recordID.recordName)) }
            guard configuration.queuesWhenOffline else { throw error }
            // Saves and deletes wait in the outbox with their policy and change tag.
            return try enqueue(items, context: context)
        }
    }

    /// The server cannot be reached, or the connection broke (the request may or may not have landed).
    static func isOffline(_ error: CloudError) -> Bool {
        error.code == .networkUnavailable || error.code == .networkFailure
    }

    private func send(_ items: [ModifyItem], atomically: Bool, context: StoreContext) async throws -> [ModifyItemResult] {
        var operations: [JSONValue] = []
        var types: [String] = []
        for item in items {
            let type: String
            let json: JSONValue
            switch item {
            case .save(let record, let rule):
                let receipts = try await uploadAssets(of: record, context: context)
                type = Self.operationType(record, rule)
                json = RemoteWire.recordJSON(record, allFields: rule.writesAllFields, receipts: receipts)
            case .delete(let id, let tag):
                type = tag == nil ? "forceDelete" : "delete"
                var record: [String: JSONValue] = ["recordName": .string(id.recordName), "zoneID": id.zoneID.webServicesJSON]
                if let tag { record["recordChangeTag"] = .string(tag) }
                json = .object(record)
            }
            types.append(type)
            operations.append(.object(["operationType": .string(type), "record": json]))
        }
        let body = JSONValue.object(["operations": .array(operations), "atomic": .bool(atomically)])
        // Noted before sending: the push may arrive before the answer.
        noteOwnChanges(items.map(\.recordID.recordName))
        let answer = try await client.database(context.scope, "records/modify", body: body, idempotent: false)
        noteChange()
        var results: [ModifyItemResult] = []
        for (item, typed) in zip(items, zip(types, try Self.items(answer, "records", expected: items.count))) {
            let (type, result) = typed
            if var error = Self.itemError(result) {
                error.recordID = item.recordID
                forgetOwnChanges([item.recordID.recordName])
                // The in-process API says serverRecordChanged where the wire's create says EXISTS.
                if type == "create", error.code == .constraintViolation { error.code = .serverRecordChanged }
                if let server = result["serverRecord"], server.objectValue != nil {
                    error.serverRecord = try await record(server, zone: item.recordID.zoneID)
                    if case .save(let client, _) = item { error.clientRecord = client }
                }
                results.append(ModifyItemResult(recordID: item.recordID, outcome: .failed(error, isDelete: item.isDelete)))
            } else if item.isDelete {
                results.append(ModifyItemResult(recordID: item.recordID, outcome: .deleted))
            } else {
                results.append(ModifyItemResult(recordID: item.recordID, outcome: .saved(try await record(result, zone: item.recordID.zoneID))))
            }
        }
        return results
    }

    /// The wire's operation for a save rule: `create` for a record the server has not seen
    /// (no change tag), `update`/`replace` checking the tag, `forceUpdate`/`forceReplace` not.
    static func operationType(_ record: Record, _ rule: SaveRule) -> String {
        switch rule.policy {
        case .ifServerRecordUnchanged:
            guard record.snapshot.recordChangeTag != nil else { return "create" }
            return rule.replacesFields ? "replace" : "update"
        case .changedKeys: return rule.replacesFields ? "forceReplace" : "forceUpdate"
        case .allKeys: return "forceReplace"
        }
    }

    /// A record from the server, its assets downloaded into the cache.
    func record(_ json: JSONValue, zone: RecordZone.ID) async throws -> Record {
        try await downloadAssets(of: [json])
        return try RemoteWire.serverRecord(json, zoneID: zone, assetFile: cachedAsset)
    }

    /// Downloads the assets of these record items that the asset cache lacks.
    func downloadAssets(of items: [JSONValue]) async throws {
        for json in items {
            for (digest, url) in RemoteWire.assetDownloads(json) where cachedAsset(digest) == nil {
                try await downloadAsset(digest: digest, from: url)
            }
        }
    }
}
