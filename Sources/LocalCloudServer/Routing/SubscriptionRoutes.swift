import Hummingbird
import LocalCloud

// subscriptions/list, subscriptions/lookup, subscriptions/modify. Delivery: see Push/.
extension CloudServer {
    func addSubscriptionRoutes(to router: Router<ServerRequestContext>) {
        onDatabase(router, .get, "subscriptions/list") { call in try await Self.listSubscriptions(call) }
        onDatabase(router, .post, "subscriptions/list") { call in try await Self.listSubscriptions(call) }
        onDatabase(router, .post, "subscriptions/lookup") { call in try await Self.lookupSubscriptions(call) }
        onDatabase(router, .post, "subscriptions/modify") { call in try await Self.modifySubscriptions(call) }
    }

    /// Subscriptions belong to a user: without one there are none to list.
    static func listSubscriptions(_ call: DatabaseCall) async throws -> JSONValue {
        try call.requireUser("Listing subscriptions")
        let subscriptions = try await call.database.allSubscriptions()
        return .object(["subscriptions": .array(subscriptions.map(\.webServicesJSON))])
    }

    static func lookupSubscriptions(_ call: DatabaseCall) async throws -> JSONValue {
        try call.requireUser("Looking up subscriptions")
        let ids = try call.array("subscriptions", max: maximumItems).enumerated().map { index, item in
            guard let id = item["subscriptionID"]?.stringValue ?? item.stringValue else {
                throw ServerError(.badRequest, "subscriptions[\(index)].subscriptionID is missing")
            }
            return id
        }
        let results = try await call.database.subscriptions(for: ids)
        return .object(["subscriptions": .array(ids.map { id in
            switch results[id] ?? .failure(CloudError(.unknownItem, "Subscription not found: \(id)")) {
            case .success(let subscription): subscription.webServicesJSON
            case .failure(let error): subscriptionError(id, error)
            }
        })])
    }

    /// `operations: [{operationType: create|update|delete, subscription}]`; results in request order.
    /// A create of an ID that exists fails with EXISTS, an update or delete of one that does not with NOT_FOUND.
    static func modifySubscriptions(_ call: DatabaseCall) async throws -> JSONValue {
        try call.requireUser("Saving or deleting subscriptions")
        let operations = try call.array("operations", max: maximumItems)
        enum Planned { case save(String, Subscription), delete(String), failed(String, any Error) }
        var planned: [Planned] = []
        for (index, item) in operations.enumerated() {
            guard let type = item["operationType"]?.stringValue else {
                throw ServerError(.badRequest, "operations[\(index)].operationType is missing")
            }
            guard let json = item["subscription"], json.objectValue != nil else {
                throw ServerError(.badRequest, "operations[\(index)].subscription is missing")
            }
            switch type {
            case "create", "update":
                do {
                    planned.append(.save(type, try Subscription.webServices(json)))
                } catch {
                    planned.append(.failed(json["subscriptionID"]?.stringValue ?? "", error))
                }
            case "delete":
                guard let id = json["subscriptionID"]?.stringValue else {
                    throw ServerError(.badRequest, "operations[\(index)].subscription.subscriptionID is missing")
                }
                planned.append(.delete(id))
            default:
                throw ServerError(.badRequest, "operations[\(index)]: unknown operationType '\(type.prefix(40))': use create, update or delete")
            }
        }
        // create must not replace, update must replace: check what exists first.
        let existing = Set(try await call.database.allSubscriptions().map(\.subscriptionID))
        var toSave: [Subscription] = []
        var toDelete: [String] = []
        var refused: [String: CloudError] = [:]
        for item in planned {
            switch item {
            case .save("create", let subscription) where existing.contains(subscription.subscriptionID):
                refused[subscription.subscriptionID] = CloudError(.constraintViolation, "Subscription \(subscription.subscriptionID) already exists")
            case .save("update", let subscription) where !existing.contains(subscription.subscriptionID):
                refused[subscription.subscriptionID] = CloudError(.unknownItem, "Subscription not found: \(subscription.subscriptionID)")
            case .save(_, let subscription): toSave.append(subscription)
            case .delete(let id): toDelete.append(id)
            case .failed: break
            }
        }
        let (saved, deleted) = try await call.database.modifySubscriptions(saving: toSave, deleting: toDelete)
        return .object(["subscriptions": .array(planned.map { item in
            switch item {
            case .failed(let id, let error):
                return subscriptionError(id, error)
            case .save(_, let subscription):
                let id = subscription.subscriptionID
                if let error = refused[id] { return subscriptionError(id, error) }
                switch saved[id] ?? .failure(CloudError(.internalError, "No result for subscription \(id)")) {
                case .success(let subscription): return subscription.webServicesJSON
                case .failure(let error): return subscriptionError(id, error)
                }
            case .delete(let id):
                switch deleted[id] ?? .failure(CloudError(.internalError, "No result for subscription \(id)")) {
                case .success: return .object(["subscriptionID": .string(id), "deleted": .bool(true)])
                case .failure(let error): return subscriptionError(id, error)
                }
            }
        })])
    }

    /// A per-subscription failure: `{subscriptionID, reason, serverErrorCode}`.
    static func subscriptionError(_ id: String, _ error: any Error) -> JSONValue {
        let serverError = ServerError(wrapping: error)
        return .object([
            "subscriptionID": .string(id), "reason": .string(serverError.reason),
            "serverErrorCode": .string(serverError.code.rawValue),
        ])
    }
}
