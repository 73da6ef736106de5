import Foundation

// The catch-up: what changed on the server while this client was away, applied to the cache.
extension RemoteStore {
    /// Gives the cache a change token for `scope` before its first entry is stored, so that
    /// everything changed after the entry was read is in the next catch-up. One
    /// `changes/database` exchange, once per cache; a failure leaves the cache without a token
    /// (the next read tries again).
    func ensureCacheToken(_ scope: Database.Scope) async {
        // Known to be away: no second timeout before the read itself (the next answer sets one).
        guard reachable.load(ordering: .relaxed), (try? responses.changeToken(scope)) ?? nil == nil else { return }
        guard let token = try? await databaseToken(scope: scope, since: nil).token else { return }
        try? responses.setChangeTokenIfAbsent(token, scope: scope)
    }

    /// Starts a catch-up on the background worker (at launch, and when the server answers again
    /// after a network failure). It does not retry on its own: a failure leaves the token where it
    /// was, and the server's next answer after it (``reaching(_:)``) starts another.
    func startCatchUp() {
        catchUpWorker.start { [self] in
            for scope in [Database.Scope.public, .private] { _ = try? await catchUp(scope) }
            return false
        }
    }

    /// Fetches every change after the cache's token for `scope` (`changes/database`, then
    /// `changes/zone` for each changed zone, all pages) and applies them to the cached pages and
    /// records: deleted rows leave every page they were on, changed ones are replaced.
    /// - Returns: how many cache entries changed (0 without a token: nothing is cached yet).
    /// - Throws: network errors (nothing applied; the token stays); `changeTokenExpired` after a
    ///   compaction past the token, which also empties the scope's cache (the next reads fill it).
    @discardableResult
    func catchUp(_ scope: Database.Scope) async throws -> Int {
        guard let since = try responses.changeToken(scope) else { return 0 }
        do {
            return try await catchUp(scope, since: since)
        } catch let error as CloudError where error.code == .changeTokenExpired {
            // What changed since the cache's token cannot be known: the cache starts again.
            try? responses.reset(scope)
            throw error
        }
    }

    private func catchUp(_ scope: Database.Scope, since: String) async throws -> Int {
        let context = StoreContext(scope: scope, user: configuration.user)
        let (zones, token) = try await reaching { try await databaseToken(scope: scope, since: since) }
        var found: [ResponseCache.ZoneChanges] = []
        for zone in zones {
            var zoneChanges = ResponseCache.ZoneChanges(zone: zone.webServicesJSON)
            var zoneToken = since
            var moreComing = true
            while moreComing {
                let body = JSONValue.object([
                    "zones": .array([.object(["zoneID": zone.webServicesJSON, "syncToken": .string(zoneToken)])]),
                    "resultsLimit": .int(200),
                ])
                let answer = try await reaching { try await changes(context.scope, "changes/zone", body: body, hasToken: true) }
                guard let result = answer.at("zones", "0") else { throw CloudError(.networkFailure, "changes/zone answered no zone") }
                if let error = Self.itemError(result).map({ Self.tokenRefusal($0, hasToken: true) }) {
                    // A zone deleted meanwhile: nothing to fetch (its cached entries stay until read again).
                    guard error.code == .zoneNotFound else { throw error }
                    break
                }
                guard let next = result["syncToken"]?.stringValue else { throw CloudError(.networkFailure, "changes/zone answered no syncToken") }
                for item in result["records"]?.arrayValue ?? [] {
                    guard let name = item["recordName"]?.stringValue else { continue }
                    if item["deleted"]?.boolValue == true {
                        zoneChanges.deleted.insert(name)
                        zoneChanges.modified[name] = nil
                    } else if Self.itemError(item) == nil {
                        zoneChanges.modified[name] = item
                        zoneChanges.deleted.remove(name)
                    }
                }
                zoneToken = next
                moreComing = result["moreComing"]?.boolValue ?? false
            }
            found.append(zoneChanges)
        }
        let changed = try responses.apply(found, scope: scope, token: token)
        if changed > 0 { noteChange() }
        return changed
    }

    /// The zones changed since `since` and the database's token now (`changes/database`, every page).
    func databaseToken(scope: Database.Scope, since: String?) async throws -> (zones: [RecordZone.ID], token: String) {
        let context = StoreContext(scope: scope, user: configuration.user)
        var zones: [RecordZone.ID] = []
        var token = since
        var moreComing = true
        while moreComing {
            var body: [String: JSONValue] = ["resultsLimit": .int(400)]
            if let token { body["syncToken"] = .string(token) }
            let answer = try await changes(context.scope, "changes/database", body: .object(body), hasToken: token != nil)
            guard let next = answer["syncToken"]?.stringValue else { throw CloudError(.networkFailure, "changes/database answered no syncToken") }
            for item in answer["zones"]?.arrayValue ?? [] {
                zones.append(try RecordZone.ID(webServices: item["zoneID"]))
            }
            token = next
            moreComing = answer["moreComing"]?.boolValue ?? false
        }
        guard let token else { throw CloudError(.networkFailure, "changes/database answered no syncToken") }
        return (zones, token)
    }
}
