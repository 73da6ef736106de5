import Foundation

// changes/zone and changes/database with the server's sync tokens; the administrator's pages.
extension RemoteStore {
    package func recordZoneChanges(in zoneID: RecordZone.ID, since token: ServerChangeToken?, desiredKeys: [String]?,
                                   limit: Int, context: StoreContext) async throws -> ZoneChangesPage {
        var zone: [String: JSONValue] = ["zoneID": zoneID.webServicesJSON]
        if let token { zone["syncToken"] = .string(try Self.syncToken(token)) }
        if let desiredKeys { zone["desiredKeys"] = .array(desiredKeys.map(JSONValue.string)) }
        let body = JSONValue.object(["zones": .array([.object(zone)]), "resultsLimit": .int(Int64(max(1, min(limit, 200))))])
        let answer = try await changes(context.scope, "changes/zone", body: body, hasToken: token != nil)
        guard let result = answer.at("zones", "0") else { throw CloudError(.networkFailure, "changes/zone answered no zone") }
        if let error = Self.itemError(result) { throw Self.tokenRefusal(error, hasToken: token != nil) }
        guard let next = result["syncToken"]?.stringValue else { throw CloudError(.networkFailure, "changes/zone answered no syncToken") }
        var page = ZoneChangesPage(token: ServerChangeToken(syncToken: next), moreComing: result["moreComing"]?.boolValue ?? false)
        for item in result["records"]?.arrayValue ?? [] {
            guard let name = item["recordName"]?.stringValue else { continue }
            let id = Record.ID(recordName: name, zoneID: zoneID)
            if item["deleted"]?.boolValue == true {
                page.deleted.append((id, item["recordType"]?.stringValue ?? ""))
            } else if let error = Self.itemError(item) {
                page.modified.append((id, .failure(error)))
            } else {
                await page.modified.append((id, .success(try record(item, zone: zoneID))))
            }
        }
        return page
    }

    package func databaseChanges(since token: ServerChangeToken?, limit: Int, context: StoreContext) async throws -> DatabaseChangesPage {
        var body: [String: JSONValue] = ["resultsLimit": .int(Int64(max(1, min(limit, 400))))]
        if let token { body["syncToken"] = .string(try Self.syncToken(token)) }
        let answer = try await changes(context.scope, "changes/database", body: .object(body), hasToken: token != nil)
        guard let next = answer["syncToken"]?.stringValue else { throw CloudError(.networkFailure, "changes/database answered no syncToken") }
        var page = DatabaseChangesPage(token: ServerChangeToken(syncToken: next), moreComing: answer["moreComing"]?.boolValue ?? false)
        for item in answer["zones"]?.arrayValue ?? [] {
            let id = try RecordZone.ID(webServices: item["zoneID"])
            if item["deleted"]?.boolValue == true { page.deletedZones.append(id) } else { page.changedZones.append(id) }
        }
        return page
    }

    /// A changes call (`changes/database`, `changes/zone`).
    /// - Throws: `changeTokenExpired` when the server refuses the token, as the embedded store does.
    func changes(_ scope: Database.Scope, _ path: String, body: JSONValue, hasToken: Bool) async throws -> JSONValue {
        do {
            return try await client.database(scope, path, body: body, idempotent: true)
        } catch let error as CloudError {
            throw Self.tokenRefusal(error, hasToken: hasToken)
        }
    }

    /// The wire has no code of its own for an expired token: the server answers BAD_REQUEST
    /// ("compacted past this token", "from another database"). A call whose only caller-made part
    /// is the token means the token is no longer usable, which LocalCloud calls `changeTokenExpired`.
    static func tokenRefusal(_ error: CloudError, hasToken: Bool) -> CloudError {
        guard hasToken, error.code == .invalidArguments || error.code == .changeTokenExpired else { return error }
        var expired = error
        expired.code = .changeTokenExpired
        return expired
    }

    /// The server's token inside a ``ServerChangeToken``.
    /// - Throws: `changeTokenExpired` for a token the embedded store issued.
    static func syncToken(_ token: ServerChangeToken) throws -> String {
        guard let text = token.wireSyncToken else {
            throw CloudError(.changeTokenExpired, "This change token is from a local container; fetch again without a token")
        }
        return text
    }

    /// The server's token for now (the one a fetch of database changes from the beginning ends
    /// with). While the server is away: the token the local cache is current to, so that changes
    /// fetched after reconnecting include everything the cached pages lack.
    package func currentChangeToken() async throws -> ServerChangeToken {
        // Known to be away: the cache's answer without waiting for another timeout.
        if !reachable.load(ordering: .relaxed), let cached = try responses.changeToken(.public) {
            return ServerChangeToken(syncToken: cached)
        }
        do {
            return await ServerChangeToken(syncToken: try reaching { try await databaseToken(scope: .public, since: nil) }.token)
        } catch let error as CloudError where Self.isOffline(error) {
            guard let cached = try responses.changeToken(.public) else { throw error }
            return ServerChangeToken(syncToken: cached)
        }
    }

    package func compactChangeLog(throughSequence: Int64?, olderThan: Date?) throws -> Int {
        throw Self.administrative("Compacting the change log")
    }

    // MARK: SchemaStore

    package func loadSchema() throws -> Schema {
        throw Self.administrative("Reading the schema")
    }

    package func updateSchema(rebuildingSearch: Bool, _ change: (Schema) throws -> Schema?) throws -> Schema {
        throw Self.administrative("Changing the schema")
    }

    package func resetAll() throws {
        throw Self.administrative("Resetting the environment")
    }

    package func statistics() throws -> ContainerStatistics {
        throw Self.administrative("Container statistics")
    }

    package func allRecords(zone: RecordZone.ID, types: [String]?, context: StoreContext) throws -> [Record] {
        throw Self.administrative("Exporting every record")
    }

    package func collectGarbage(gracePeriod: TimeInterval) throws -> GarbageCollectionReport {
        throw Self.administrative("Garbage collection")
    }
}
