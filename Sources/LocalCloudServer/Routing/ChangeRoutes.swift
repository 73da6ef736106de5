import Foundation
import Hummingbird
import LocalCloud

// changes/database and changes/zone.
extension CloudServer {
    func addChangeRoutes(to router: Router<ServerRequestContext>) {
        onDatabase(router, .post, "changes/database") { call in try await Self.databaseChanges(call) }
        onDatabase(router, .post, "changes/zone") { call in try await Self.zoneChanges(call) }
    }

    /// `{zones: [{zoneID, syncToken?, desiredKeys?, desiredRecordTypes?}]}` → each zone's changed records.
    static func zoneChanges(_ call: DatabaseCall) async throws -> JSONValue {
        let requests = try call.array("zones", max: maximumItems)
        let limit = try resultsLimit(call.body["resultsLimit"], maximum: maximumResultsLimit)
        var zones: [JSONValue] = []
        for (index, request) in requests.enumerated() {
            guard request["zoneID"] != nil else { throw ServerError(.badRequest, "zones[\(index)].zoneID is missing") }
            var body = request.objectValue ?? [:]
            body["resultsLimit"] = .int(Int64(limit))
            var zoneCall = call
            zoneCall.body = .object(body)
            let zoneID = try zoneCall.zoneID()
            do {
                zones.append(try await recordChanges(zoneCall))
            } catch {
                zones.append(zoneError(zoneID, error))
            }
        }
        return .object(["zones": .array(zones)])
    }
}
