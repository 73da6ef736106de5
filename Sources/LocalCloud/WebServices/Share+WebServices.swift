import Foundation

// Shares as CloudKit Web Services writes them: a record of type `cloudkit.share` with
// `publicPermission`, `participants`, `shortGUID`, `owner` and `currentUserParticipant` beside its
// fields; `parent` and `share` on any record. Enum values as CloudKit JS spells them.
extension Share.ParticipantPermission {
    package var webServicesName: String {
        switch self {
        case .unknown: "UNKNOWN"
        case .none: "NONE"
        case .readOnly: "READ_ONLY"
        case .readWrite: "READ_WRITE"
        }
    }

    package init(webServicesName name: String) throws {
        switch name {
        case "NONE": self = .none
        case "READ_ONLY": self = .readOnly
        case "READ_WRITE": self = .readWrite
        default: throw CloudError(.invalidArguments, "permission must be NONE, READ_ONLY or READ_WRITE")
        }
    }
}

extension Share.ParticipantRole {
    /// CloudKit Web Services sends `USER` for a private user; CloudKit JS's docs say `PRIVATE_USER`.
    package var webServicesName: String {
        switch self {
        case .unknown: "UNKNOWN"
        case .owner: "OWNER"
        case .privateUser: "USER"
        case .publicUser: "PUBLIC_USER"
        }
    }

    package init(webServicesName name: String) throws {
        switch name {
        case "OWNER": self = .owner
        case "USER", "PRIVATE_USER": self = .privateUser
        case "PUBLIC_USER": self = .publicUser
        default: throw CloudError(.invalidArguments, "participant type must be OWNER, USER, PRIVATE_USER or PUBLIC_USER")
        }
    }
}

extension Share.ParticipantAcceptanceStatus {
    package var webServicesName: String {
        switch self {
        case .unknown: "UNKNOWN"
        case .pending: "INVITED"
        case .accepted: "ACCEPTED"
        case .removed: "REMOVED"
        }
    }

    package init(webServicesName name: String) throws {
        switch name {
        case "INVITED", "PENDING": self = .pending
        case "ACCEPTED": self = .accepted
        case "REMOVED": self = .removed
        case "UNKNOWN": self = .unknown
        default: throw CloudError(.invalidArguments, "acceptanceStatus must be INVITED, ACCEPTED or REMOVED")
        }
    }
}

extension UserIdentity {
    package var webServicesJSON: JSONValue {
        var json: [String: JSONValue] = [:]
        if let id = userRecordID { json["userRecordName"] = .string(id.recordName) }
        var lookup: [String: JSONValue] = [:]
        if let email = lookupInfo?.emailAddress { lookup["emailAddress"] = .string(email) }
        if let id = lookupInfo?.userRecordID { lookup["userRecordName"] = .string(id.recordName) }
        if !lookup.isEmpty { json["lookupInfo"] = .object(lookup) }
        return .object(json)
    }

    package init(webServices json: JSONValue?) throws {
        guard let object = json?.objectValue else { throw CloudError(.invalidArguments, "participant.userIdentity must be an object") }
        let lookup = object["lookupInfo"]?.objectValue
        let name = object["userRecordName"]?.stringValue ?? lookup?["userRecordName"]?.stringValue
        guard let name, !name.isEmpty, name.utf8.count <= 255 else {
            throw CloudError(.invalidArguments, "participant.userIdentity.userRecordName is missing")
        }
        let id = Record.ID(recordName: name.hasPrefix("_") ? name : "_" + name)
        var info = LookupInfo(userRecordID: id)
        info.emailAddress = lookup?["emailAddress"]?.stringValue
        self.init(userRecordID: id, lookupInfo: info)
    }
}

extension Share.Participant {
    package var webServicesJSON: JSONValue {
        .object([
            "userIdentity": userIdentity.webServicesJSON, "type": .string(role.webServicesName),
            "acceptanceStatus": .string(acceptanceStatus.webServicesName), "permission": .string(permission.webServicesName),
        ])
    }

    package init(webServices json: JSONValue) throws {
        guard let object = json.objectValue else { throw CloudError(.invalidArguments, "a participant must be an object") }
        let identity = try UserIdentity(webServices: object["userIdentity"])
        let role = try object["type"]?.stringValue.map(Share.ParticipantRole.init(webServicesName:)) ?? .privateUser
        let permission = try object["permission"]?.stringValue.map(Share.ParticipantPermission.init(webServicesName:)) ?? .readOnly
        let status = try object["acceptanceStatus"]?.stringValue.map(Share.ParticipantAcceptanceStatus.init(webServicesName:)) ?? .pending
        self.init(userIdentity: identity, role: role, permission: permission, acceptanceStatus: status)
    }
}

extension Share {
    /// The share's own keys, which the wire carries beside `fields`.
    static let wireKeys: Set<String> = [publicPermissionKey, participantsKey, shortGUIDKey, rootRecordNameKey]

    /// Adds the share's keys to its record dictionary.
    func addWebServicesKeys(to json: inout [String: JSONValue]) {
        json["publicPermission"] = .string(publicPermission.webServicesName)
        json["participants"] = .array(participantList.map(\.webServicesJSON))
        json["owner"] = owner.webServicesJSON
        if let me = currentUserParticipant { json["currentUserParticipant"] = me.webServicesJSON }
        if let guid = shortGUID { json["shortGUID"] = .string(guid) }
        if let root = rootRecordName { json["rootRecord"] = .object(["recordName": .string(root)]) }
        if let url { json["url"] = .string(url.absoluteString) }
    }

    /// Reads the share's keys from a record dictionary sent to save it.
    func applyWebServicesKeys(_ object: [String: JSONValue]) throws {
        if let permission = object["publicPermission"]?.stringValue {
            setField(.int64(Int64(try ParticipantPermission(webServicesName: permission).rawValue)), Self.publicPermissionKey)
        } else if field(Self.publicPermissionKey) == nil {
            setField(.int64(Int64(ParticipantPermission.none.rawValue)), Self.publicPermissionKey)
        }
        if let participants = object["participants"]?.arrayValue {
            guard participants.count <= 100 else { throw CloudError(.tooManyParticipants, "A share has at most 100 participants") }
            participantList = try participants.map(Participant.init(webServices:))
        }
        if let root = object["rootRecordName"]?.stringValue, !root.isEmpty, field(Self.rootRecordNameKey) == nil {
            setField(.string(root), Self.rootRecordNameKey)
        }
    }
}

extension Record {
    /// A record from a request's record dictionary: a ``Share`` for type `cloudkit.share`; `parent`
    /// and `share` read from beside the fields.
    package static func fromWebServices(_ json: JSONValue, zoneID: RecordZone.ID, assets: AssetWireMapping) throws -> Record {
        let plain = try Record(webServices: json, zoneID: zoneID, assets: assets)
        let object = json.objectValue ?? [:]
        let record: Record
        if plain.recordType == Share.recordType {
            var state = plain.snapshot
            for key in Share.wireKeys { state.fields[key] = nil }
            state.changed.removeAll { Share.wireKeys.contains($0) }
            let share = Share(recordID: plain.recordID, state: state)
            if plain.recordID.recordName == Share.zoneWideShareRecordName {
                // Zone-wide: no root.
            } else if let root = object["rootRecord"]?["recordName"]?.stringValue ?? object["rootRecordName"]?.stringValue {
                share.setField(.string(root), Share.rootRecordNameKey)
            }
            try share.applyWebServicesKeys(object)
            record = share
        } else {
            record = plain
        }
        if let parent = object["parent"] {
            if parent == .null {
                record.parent = nil
            } else {
                record.parent = Reference(recordID: try Record.ID(webServices: parent, zoneID: record.recordID.zoneID), action: .none)
            }
        }
        return record
    }

    /// `parent` and `share` beside the fields, as CloudKit Web Services sends them.
    func addSharingKeys(to json: inout [String: JSONValue], fields: inout [String: JSONValue]) {
        for key in Record.sharingKeys { fields[key] = nil }
        if let parent { json["parent"] = .object(["recordName": .string(parent.recordID.recordName)]) }
        if let share {
            json["share"] = .object(["recordName": .string(share.recordID.recordName), "zoneID": share.recordID.zoneID.webServicesJSON])
        }
        if let share = self as? Share {
            for key in Share.wireKeys { fields[key] = nil }
            share.addWebServicesKeys(to: &json)
        }
    }
}

// The remote store's side: what it sends to save, and what it makes of the server's records.
extension Share {
    /// Moves `parent` and a share's own keys out of `fields` to where the wire carries them.
    static func addSharingWire(_ record: Record, to json: inout [String: JSONValue]) {
        guard var fields = json["fields"]?.objectValue else { return }
        let state = record.snapshot
        if fields[Record.parentKey] != nil {
            if case .reference(let parent)? = state.fields[Record.parentKey] {
                json["parent"] = .object(["recordName": .string(parent.recordID.recordName)])
            } else {
                json["parent"] = .null
            }
        }
        // The server sets `share` itself.
        for key in Record.sharingKeys { fields[key] = nil }
        if let share = record as? Share {
            for key in wireKeys { fields[key] = nil }
            json["publicPermission"] = .string(share.publicPermission.webServicesName)
            json["participants"] = .array(share.participantList.map(\.webServicesJSON))
            if let root = share.rootRecordName { json["rootRecord"] = .object(["recordName": .string(root)]) }
        }
        json["fields"] = .object(fields)
    }

    /// A record from a server's JSON: `parent` and `share` into their fields; a `cloudkit.share`
    /// becomes a ``Share`` with its participants, permission, short GUID and URL.
    static func fromServerJSON(_ json: JSONValue, type: String, recordID: Record.ID, state: Record.State) -> Record {
        var state = state
        if let parent = json["parent"]?["recordName"]?.stringValue {
            state.fields[Record.parentKey] = .reference(Record.Reference(recordID: Record.ID(recordName: parent, zoneID: recordID.zoneID), action: .none))
        }
        if let shareName = json["share"]?["recordName"]?.stringValue {
            let zone = json["share"]?["zoneID"].flatMap { try? RecordZone.ID(webServices: $0) } ?? recordID.zoneID
            state.fields[Record.shareKey] = .reference(Record.Reference(recordID: Record.ID(recordName: shareName, zoneID: zone), action: .none))
        }
        guard type == Share.recordType else { return Record(recordType: type, recordID: recordID, state: state) }
        if let permission = json["publicPermission"]?.stringValue.flatMap({ try? ParticipantPermission(webServicesName: $0) }) {
            state.fields[publicPermissionKey] = .int64(Int64(permission.rawValue))
        }
        if let guid = json["shortGUID"]?.stringValue { state.fields[shortGUIDKey] = .string(guid) }
        if let root = json["rootRecord"]?["recordName"]?.stringValue { state.fields[rootRecordNameKey] = .string(root) }
        let share = Share(recordID: recordID, state: state)
        if let participants = json["participants"]?.arrayValue {
            share.participantList = participants.compactMap { try? Participant(webServices: $0) }
            share.state.withLock { $0.changed.removeAll() }
        }
        let me = json["currentUserParticipant"]?["userIdentity"]?["userRecordName"]?.stringValue
        var base: String?
        if let url = json["url"]?.stringValue, let guid = share.shortGUID, url.hasSuffix(guid) { base = String(url.dropLast(guid.count)) }
        share.setViewer(me, urlBase: base)
        return share
    }
}
