import Foundation
import Hummingbird
import LocalCloud

// zones/list, zones/lookup, zones/modify, zones/changes.
extension CloudServer {
    func addZoneRoutes(to router: Router<ServerRequestContext>) {
        onDatabase(router, .get, "zones/list") { call in
            .object(["zones": .array(try await call.database.allRecordZones().map { Self.zoneJSON($0.zoneID) })])
        }
        onDatabase(router, .post, "zones/list") { call in
            .object(["zones": .array(try await call.database.allRecordZones().map { Self.zoneJSON($0.zoneID) })])
        }
        onDatabase(router, .post, "zones/lookup") { call in try await Self.lookupZones(call) }
        onDatabase(router, .post, "zones/modify") { call in try await Self.modifyZones(call) }
        onDatabase(router, .post, "zones/changes") { call in try await Self.databaseChanges(call) }
    }

    static func zoneJSON(_ id: RecordZone.ID) -> JSONValue {
        .object(["zoneID": id.webServicesValue, "atomic": .bool(true)])
    }

    static func zoneError(_ id: RecordZone.ID, _ error: any Error) -> JSONValue {
        let serverError = ServerError(wrapping: error)
        return .object(["zoneID": id.webServicesValue, "reason": .string(serverError.reason),
                        "serverErrorCode": .string(serverError.code.rawValue)])
    }

    static func zoneIDs(_ items: [JSONValue], key: String) throws -> [RecordZone.ID] {
        try items.enumerated().map { index, item in
            // Entries are `{zoneID: {…}}` in modify and `{zoneName}` in lookup; accept either.
            let json = item["zoneID"] ?? item
            guard json["zoneName"]?.stringValue != nil else {
                throw ServerError(.badRequest, "\(key)[\(index)] needs a zoneName")
            }
            return try RecordZone.ID.webServices(json)
        }
    }

    static func lookupZones(_ call: DatabaseCall) async throws -> JSONValue {
        let ids = try zoneIDs(try call.array("zones", max: maximumItems), key: "zones")
        var results: [JSONValue] = []
        for id in ids {
            do {
                results.append(zoneJSON(try await call.database.recordZone(for: id).zoneID))
            } catch {
                results.append(zoneError(id, error))
            }
        }
        return .object(["zones": .array(results)])
    }

    static func modifyZones(_ call: DatabaseCall) async throws -> JSONValue {
        try call.requireUser("Changing zones")
        let operations = try call.array("operations", max: maximumItems)
        var saves: [RecordZone] = []
        var deletes: [RecordZone.ID] = []
        var order: [(RecordZone.ID, isDelete: Bool)] = []
        for (index, operation) in operations.enumerated() {
            guard let type = operation["operationType"]?.stringValue, let zone = operation["zone"] else {
                throw ServerError(.badRequest, "operations[\(index)] needs operationType and zone")
            }
            let id = try zoneIDs([zone], key: "operations[\(index)].zone")[0]
            switch type {
            case "create":
                saves.append(RecordZone(zoneID: id))
                order.append((id, false))
            case "delete":
                deletes.append(id)
                order.append((id, true))
            default:
                throw ServerError(.badRequest, "operations[\(index)]: unknown operationType '\(type.prefix(40))': use create or delete")
            }
        }
        let (saved, deleted) = try await call.database.modifyRecordZones(saving: saves, deleting: deletes)
        return .object(["zones": .array(order.map { id, isDelete in
            if isDelete {
                switch deleted[id] {
                case .failure(let error)?: return zoneError(id, error)
                default: return .object(["zoneID": id.webServicesValue, "deleted": .bool(true)])
                }
            }
            switch saved[id] {
            case .failure(let error)?: return zoneError(id, error)
            default: return zoneJSON(id)
            }
        })])
    }

    /// `zones/changes` and `changes/database`: which zones changed since `syncToken`.
    static func databaseChanges(_ call: DatabaseCall) async throws -> JSONValue {
        let token = try SyncTokenCoding.decode(call.body["syncToken"])
        let limit = try resultsLimit(call.body["resultsLimit"], maximum: maximumItems)
        let page = try await call.database.databaseChanges(since: token, resultsLimit: limit)
        let zones = page.modifications.map { zoneJSON($0.zoneID) }
            + page.deletions.map { JSONValue.object(["zoneID": $0.zoneID.webServicesValue, "deleted": .bool(true)]) }
        return .object(["zones": .array(zones), "syncToken": .string(SyncTokenCoding.encode(page.changeToken)),
                        "moreComing": .bool(page.moreComing)])
    }
}
