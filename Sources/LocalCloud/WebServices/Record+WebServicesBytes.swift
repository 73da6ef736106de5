import Foundation

// A record's Web Services dictionary written straight to bytes: a query page writes 50–200 of
// them, and building each as a `JSONValue` tree (dictionaries, hashing, sorting keys) was most of
// an uncached page's CPU.
extension Record {
    /// Appends exactly the bytes of `webServicesJSON(assets:).bytes`: the same members in the
    /// writer's sorted key order. Records with sharing keys and shares take the tree path.
    package func writeWebServicesJSON(into out: inout [UInt8], assets: AssetWireMapping) {
        let state = snapshot
        guard state.fields[Record.parentKey] == nil, state.fields[Record.shareKey] == nil, !(self is Share) else {
            webServicesJSON(assets: assets).write(into: &out)
            return
        }
        var writer = JSONWriter(capacity: 0)
        swap(&writer.bytes, &out)
        defer { swap(&writer.bytes, &out) }
        // Keys in the order JSONWriter sorts them: created, deleted, fields, modified,
        // recordChangeTag, recordName, recordType, zoneID.
        writer.append("{")
        if let created = state.creationDate {
            writer.append("\"created\":")
            Self.writeStamp(created, user: state.creatorUserRecordID, into: &writer)
            writer.append(",")
        }
        writer.append("\"deleted\":false,\"fields\":{")
        var first = true
        // Sorted once as pairs: no second hash lookup and copy per field.
        for (key, value) in state.fields.sorted(by: { $0.key < $1.key }) {
            if !first { writer.append(",") }
            first = false
            writer.appendString(key)
            writer.append(":")
            value.writeWebServicesJSON(into: &writer, assets: assets)
        }
        writer.append("}")
        if let modified = state.modificationDate {
            writer.append(",\"modified\":")
            Self.writeStamp(modified, user: state.lastModifiedUserRecordID, into: &writer)
        }
        if let tag = state.recordChangeTag {
            writer.append(",\"recordChangeTag\":")
            writer.appendString(tag)
        }
        writer.append(",\"recordName\":")
        writer.appendString(recordID.recordName)
        writer.append(",\"recordType\":")
        writer.appendString(recordType)
        writer.append(",\"zoneID\":")
        recordID.zoneID.writeWebServicesJSON(into: &writer)
        writer.append("}")
    }

    /// `stamp(_:user:)`'s object: deviceID, timestamp, userRecordName.
    private static func writeStamp(_ date: Date, user: Record.ID?, into writer: inout JSONWriter) {
        writer.append("{\"deviceID\":\"LocalCloud\",\"timestamp\":")
        writer.appendInteger(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        if let user {
            writer.append(",\"userRecordName\":")
            writer.appendString(user.recordName)
        }
        writer.append("}")
    }
}

extension RecordZone.ID {
    /// `webServicesJSON`'s bytes: ownerRecordName (when not the current user), zoneName.
    func writeWebServicesJSON(into writer: inout JSONWriter) {
        writer.append("{")
        if ownerName != RecordZone.ID.currentUserName {
            writer.append("\"ownerRecordName\":")
            writer.appendString(ownerName)
            writer.append(",")
        }
        writer.append("\"zoneName\":")
        writer.appendString(zoneName)
        writer.append("}")
    }
}

extension FieldValue {
    /// `webServicesJSON(assets:)`'s bytes, `{"type":…,"value":…}`; scalars without a tree.
    func writeWebServicesJSON(into writer: inout JSONWriter, assets: AssetWireMapping) {
        switch self {
        case .string(let s):
            writer.append("{\"type\":\"STRING\",\"value\":")
            writer.appendString(s)
        case .int64(let i):
            writer.append("{\"type\":\"INT64\",\"value\":")
            writer.appendInteger(i)
        case .bool(let b):
            writer.append("{\"type\":\"INT64\",\"value\":")
            writer.appendInteger(b ? 1 : 0)
        case .double(let d):
            writer.append("{\"type\":\"DOUBLE\",\"value\":")
            writer.appendNumber(d)
        case .date(let d):
            writer.append("{\"type\":\"TIMESTAMP\",\"value\":")
            writer.appendInteger(Int64((d.timeIntervalSince1970 * 1000).rounded()))
        default:
            writer.append(webServicesJSON(assets: assets))
            return
        }
        writer.append("}")
    }
}
