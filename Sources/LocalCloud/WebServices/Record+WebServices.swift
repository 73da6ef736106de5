import Foundation

// Records as CloudKit Web Services writes them (the reference's Record Dictionary).
extension Record {
    /// `{recordName, recordType, recordChangeTag, fields, created, modified, deleted, zoneID}`.
    package func webServicesJSON(assets: AssetWireMapping) -> JSONValue {
        let state = snapshot
        var fields: [String: JSONValue] = [:]
        for (key, value) in state.fields { fields[key] = value.webServicesJSON(assets: assets) }
        var json: [String: JSONValue] = [
            "recordName": .string(recordID.recordName),
            "recordType": .string(recordType),
            "fields": .object(fields),
            "deleted": .bool(false),
            "zoneID": recordID.zoneID.webServicesJSON,
        ]
        if let tag = state.recordChangeTag { json["recordChangeTag"] = .string(tag) }
        if state.fields[Record.parentKey] != nil || state.fields[Record.shareKey] != nil || self is Share {
            addSharingKeys(to: &json, fields: &fields)
            json["fields"] = .object(fields)
        }
        if let created = state.creationDate {
            json["created"] = Self.stamp(created, user: state.creatorUserRecordID)
        }
        if let modified = state.modificationDate {
            json["modified"] = Self.stamp(modified, user: state.lastModifiedUserRecordID)
        }
        return .object(json)
    }

    private static func stamp(_ date: Date, user: Record.ID?) -> JSONValue {
        var json: [String: JSONValue] = ["timestamp": .int(Int64((date.timeIntervalSince1970 * 1000).rounded())), "deviceID": .string("LocalCloud")]
        if let user { json["userRecordName"] = .string(user.recordName) }
        return .object(json)
    }

    /// A record to save, from the request's record dictionary: its fields all count as changed,
    /// and its `recordChangeTag` is the version the client last saw.
    ///
    /// A field whose `value` is null is removed. `zoneID` is the request's zone unless the record names one.
    /// - Throws: `invalidArguments` naming the key that is missing or wrong.
    package convenience init(webServices json: JSONValue, zoneID: RecordZone.ID, assets: AssetWireMapping) throws {
        guard let object = json.objectValue else { throw CloudError(.invalidArguments, "record must be an object") }
        guard let type = object["recordType"]?.stringValue, !type.isEmpty else {
            throw CloudError(.invalidArguments, "record.recordType is missing")
        }
        let name: String
        switch object["recordName"] {
        case .string(let given)?: name = given
        case nil, .null?: name = UUID().uuidString
        default: throw CloudError(.invalidArguments, "record.recordName must be a string")
        }
        let zone = object["zoneID"].map { try? RecordZone.ID(webServices: $0) } ?? nil
        var state = State()
        switch object["recordChangeTag"] {
        case .string(let tag)?: state.recordChangeTag = tag
        case nil, .null?: break
        default: throw CloudError(.invalidArguments, "record.recordChangeTag must be a string")
        }
        switch object["fields"] {
        case .object(let fields)?:
            for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
                if value["value"] == .null {
                    state.changed.append(key)
                    continue
                }
                state.fields[key] = try FieldValue(webServices: value, field: key, assets: assets)
                state.changed.append(key)
            }
        case nil, .null?: break
        default: throw CloudError(.invalidArguments, "record.fields must be an object")
        }
        self.init(recordType: type, recordID: ID(recordName: name, zoneID: zone ?? zoneID), state: state)
    }
}

extension Record.ID {
    /// From `{recordName, zoneID?}` or a bare name, for lookups and deletes.
    package init(webServices json: JSONValue, zoneID: RecordZone.ID) throws {
        switch json {
        case .string(let name) where !name.isEmpty:
            self.init(recordName: name, zoneID: zoneID)
        case .object(let object):
            guard let name = object["recordName"]?.stringValue, !name.isEmpty else {
                throw CloudError(.invalidArguments, "recordName is missing")
            }
            let zone = try object["zoneID"].map { try RecordZone.ID(webServices: $0) } ?? zoneID
            self.init(recordName: name, zoneID: zone)
        default:
            throw CloudError(.invalidArguments, "a record reference needs a recordName")
        }
    }
}

extension RecordZone.ID {
    /// From the request's optional `zoneID` dictionary (`_defaultZone` when absent).
    package static func webServices(_ json: JSONValue?) throws -> RecordZone.ID {
        try RecordZone.ID(webServices: json)
    }

    package var webServicesValue: JSONValue { webServicesJSON }
}
