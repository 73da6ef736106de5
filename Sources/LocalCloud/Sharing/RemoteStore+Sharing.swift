import Foundation

// records/resolve and records/accept: a remote container's share URLs, resolved by its server;
// users/lookup/email: the people a share is for, found by their address.
extension RemoteStore {
    /// The user record ID of the discoverable account with this email address (`users/lookup/email`),
    /// or `nil` when the server knows no such person.
    func lookupUser(emailAddress: String) async throws -> Record.ID? {
        let body = JSONValue.object(["users": .array([.object(["emailAddress": .string(emailAddress)])])])
        let answer = try await client.database(.public, "users/lookup/email", body: body, idempotent: true)
        guard let name = answer["users"]?.arrayValue?.first?["userRecordName"]?.stringValue, !name.isEmpty else { return nil }
        return Record.ID(recordName: name)
    }

    /// The metadata behind a share URL, from the server's `records/resolve`.
    func resolveShare(shortGUID: String, fetchRoot: Bool, rootKeys: [String]?, containerIdentifier: String) async throws -> Share.Metadata {
        var entry: [String: JSONValue] = ["value": .string(shortGUID), "shouldFetchRootRecord": .bool(fetchRoot)]
        if let rootKeys { entry["rootRecordDesiredKeys"] = .array(rootKeys.map(JSONValue.string)) }
        let answer = try await client.database(.public, "records/resolve", body: .object(["shortGUIDs": .array([.object(entry)])]), idempotent: true)
        let item = try Self.items(answer, "results", expected: 1)[0]
        if let error = Self.itemError(item) { throw error }
        let zone = try RecordZone.ID(webServices: item["zoneID"])
        guard let shareJSON = item["share"],
              let share = try RemoteWire.serverRecord(shareJSON, zoneID: zone, assetFile: { _ in nil }) as? Share else {
            throw CloudError(.networkFailure, "The server's records/resolve result has no share")
        }
        let root = try item["rootRecord"].map { try RemoteWire.serverRecord($0, zoneID: zone, assetFile: { _ in nil }) }
        let owner = try? UserIdentity(webServices: item["ownerIdentity"])
        return Share.Metadata(
            containerIdentifier: item["containerIdentifier"]?.stringValue ?? containerIdentifier, share: share,
            hierarchicalRootRecordID: item["rootRecordName"]?.stringValue.map { Record.ID(recordName: $0, zoneID: zone) },
            rootRecord: root,
            participantRole: item["participantType"]?.stringValue.flatMap { try? Share.ParticipantRole(webServicesName: $0) } ?? .unknown,
            participantStatus: item["participantStatus"]?.stringValue.flatMap { try? Share.ParticipantAcceptanceStatus(webServicesName: $0) } ?? .unknown,
            participantPermission: item["participantPermission"]?.stringValue.flatMap { try? Share.ParticipantPermission(webServicesName: $0) } ?? .unknown,
            ownerIdentity: owner ?? UserIdentity(userRecordID: nil))
    }

    /// Accepts a share through the server's `records/accept`.
    func acceptShare(shortGUID: String) async throws -> Share {
        let body = JSONValue.object(["shortGUIDs": .array([.object(["value": .string(shortGUID)])])])
        let answer = try await client.database(.public, "records/accept", body: body, idempotent: true)
        let item = try Self.items(answer, "results", expected: 1)[0]
        if let error = Self.itemError(item) { throw error }
        let zone = (try? RecordZone.ID(webServices: item["zoneID"])) ?? .default
        guard let share = try RemoteWire.serverRecord(item, zoneID: zone, assetFile: { _ in nil }) as? Share else {
            throw CloudError(.networkFailure, "The server's records/accept result is not a share")
        }
        noteChange()
        return share
    }
}
