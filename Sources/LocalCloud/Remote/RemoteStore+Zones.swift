import Foundation

// zones/list, zones/lookup, zones/modify; subscriptions/list, lookup and modify.
extension RemoteStore {
    package func saveZones(_ zones: [RecordZone], context: StoreContext) async throws -> [RecordZone.ID: Result<RecordZone, CloudError>] {
        try await modifyZones(zones.map(\.zoneID), type: "create", context: context).mapValues { result in result.map { RecordZone(zoneID: $0) } }
    }

    package func deleteZones(_ ids: [RecordZone.ID], context: StoreContext) async throws -> [RecordZone.ID: Result<Void, CloudError>] {
        try await modifyZones(ids, type: "delete", context: context).mapValues { result in result.map { _ in () } }
    }

    package func fetchZones(_ ids: [RecordZone.ID]?, context: StoreContext) async throws -> [RecordZone.ID: Result<RecordZone, CloudError>] {
        guard let ids else {
            // Kept, so the zones (the lists shared with this user among them) still show while the server is away.
            let key = Self.cacheKey("zones", context, [:])
            let answer: JSONValue
            do {
                answer = try await reaching { try await client.database(context.scope, "zones/list", body: nil, idempotent: true) }
                try? responses.store(answer, for: key)
            } catch let error as CloudError where Self.isOffline(error) {
                guard let cached = try? responses.value(for: key) else { throw error }
                answer = cached
            }
            var zones: [RecordZone.ID: Result<RecordZone, CloudError>] = [:]
            for item in answer["zones"]?.arrayValue ?? [] {
                let id = try RecordZone.ID(webServices: item["zoneID"])
                zones[id] = .success(RecordZone(zoneID: id))
            }
            return zones
        }
        let body = JSONValue.object(["zones": .array(ids.map(\.webServicesJSON))])
        let answer = try await client.database(context.scope, "zones/lookup", body: body, idempotent: true)
        var results: [RecordZone.ID: Result<RecordZone, CloudError>] = [:]
        for (id, item) in zip(ids, try Self.items(answer, "zones", expected: ids.count)) {
            results[id] = Self.itemError(item).map { .failure($0) } ?? .success(RecordZone(zoneID: id))
        }
        return results
    }

    private func modifyZones(_ ids: [RecordZone.ID], type: String, context: StoreContext) async throws -> [RecordZone.ID: Result<RecordZone.ID, CloudError>] {
        guard !ids.isEmpty else { return [:] }
        let body = JSONValue.object(["operations": .array(ids.map { id in
            .object(["operationType": .string(type), "zone": .object(["zoneID": id.webServicesJSON])])
        })])
        let answer = try await client.database(context.scope, "zones/modify", body: body, idempotent: false)
        noteChange()
        var results: [RecordZone.ID: Result<RecordZone.ID, CloudError>] = [:]
        for (id, item) in zip(ids, try Self.items(answer, "zones", expected: ids.count)) {
            results[id] = Self.itemError(item).map { .failure($0) } ?? .success(id)
        }
        return results
    }

    // MARK: Subscriptions

    package func saveSubscriptions(_ subscriptions: [Subscription], context: StoreContext) async throws -> [String: Result<Subscription, CloudError>] {
        // Saving replaces, as in-process: a create the server refuses with EXISTS becomes an update.
        var results = try await modifySubscriptions(subscriptions, type: "create", context: context)
        let existing = subscriptions.filter { if case .failure(let error)? = results[$0.subscriptionID] { error.code == .constraintViolation } else { false } }
        results.merge(try await modifySubscriptions(existing, type: "update", context: context)) { _, update in update }
        return results
    }

    package func fetchSubscriptions(_ ids: [String]?, context: StoreContext) async throws -> [String: Result<Subscription, CloudError>] {
        guard let ids else {
            let answer = try await client.database(context.scope, "subscriptions/list", body: nil, idempotent: true)
            var all: [String: Result<Subscription, CloudError>] = [:]
            for item in answer["subscriptions"]?.arrayValue ?? [] {
                let subscription = try Subscription.webServices(item)
                all[subscription.subscriptionID] = .success(subscription)
            }
            return all
        }
        let body = JSONValue.object(["subscriptions": .array(ids.map { .object(["subscriptionID": .string($0)]) })])
        let answer = try await client.database(context.scope, "subscriptions/lookup", body: body, idempotent: true)
        var results: [String: Result<Subscription, CloudError>] = [:]
        for (id, item) in zip(ids, try Self.items(answer, "subscriptions", expected: ids.count)) {
            results[id] = try Self.itemError(item).map { .failure($0) } ?? .success(Subscription.webServices(item))
        }
        return results
    }

    package func deleteSubscriptions(_ ids: [String], context: StoreContext) async throws -> [String: Result<Void, CloudError>] {
        guard !ids.isEmpty else { return [:] }
        let body = JSONValue.object(["operations": .array(ids.map { id in
            .object(["operationType": .string("delete"), "subscription": .object(["subscriptionID": .string(id)])])
        })])
        let answer = try await client.database(context.scope, "subscriptions/modify", body: body, idempotent: false)
        var results: [String: Result<Void, CloudError>] = [:]
        for (id, item) in zip(ids, try Self.items(answer, "subscriptions", expected: ids.count)) {
            results[id] = Self.itemError(item).map { .failure($0) } ?? .success(())
        }
        return results
    }

    private func modifySubscriptions(_ subscriptions: [Subscription], type: String, context: StoreContext) async throws -> [String: Result<Subscription, CloudError>] {
        guard !subscriptions.isEmpty else { return [:] }
        let body = JSONValue.object(["operations": .array(subscriptions.map { subscription in
            .object(["operationType": .string(type), "subscription": subscription.webServicesJSON])
        })])
        // Through `reaching`: an app that started offline retries this until the server answers.
        let answer = try await reaching { try await client.database(context.scope, "subscriptions/modify", body: body, idempotent: false) }
        var results: [String: Result<Subscription, CloudError>] = [:]
        for (subscription, item) in zip(subscriptions, try Self.items(answer, "subscriptions", expected: subscriptions.count)) {
            results[subscription.subscriptionID] = try Self.itemError(item).map { .failure($0) } ?? .success(Subscription.webServices(item))
        }
        return results
    }
}
