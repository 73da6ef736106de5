import Foundation

/// The stored form of a record's fields: one JSON object, one entry per field.
///
/// Each entry is `{"t": kind, "v": value}` where `v` is the scalar SQL compares and sorts on
/// (`json_extract(fields, '$."name".v')`): strings, integers, doubles, booleans, dates as
/// seconds since 1970, bytes as base64, locations as `[lat, lon]`, references as the target's
/// record name, assets as their SHA-256. Lists are `{"t":"list","e":kind,"v":[…]}`.
/// What SQL never compares (a reference's zone and action, an asset's size, an altitude) sits in `x`.
enum FieldsJSON {
    static func encode(_ fields: [String: FieldValue]) -> String {
        var out = "{"
        var first = true
        for key in fields.keys.sorted() {
            guard let value = fields[key] else { continue }
            if !first { out += "," }
            first = false
            appendString(key, to: &out)
            out += ":"
            appendEntry(value, to: &out)
        }
        out += "}"
        return out
    }

    private static func appendEntry(_ value: FieldValue, to out: inout String) {
        out += "{\"t\":\"\(value.kind)\""
        if case .list(let items) = value {
            out += ",\"e\":\"\(items.first?.kind ?? "string")\",\"v\":["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                appendScalar(item, to: &out)
            }
            out += "]"
            if items.contains(where: { $0.hasExtra }) {
                out += ",\"x\":["
                for (i, item) in items.enumerated() {
                    if i > 0 { out += "," }
                    appendExtra(item, to: &out)
                }
                out += "]"
            }
        } else {
            out += ",\"v\":"
            appendScalar(value, to: &out)
            if value.hasExtra {
                out += ",\"x\":"
                appendExtra(value, to: &out)
            }
        }
        out += "}"
    }

    private static func appendScalar(_ value: FieldValue, to out: inout String) {
        switch value {
        case .string(let s): appendString(s, to: &out)
        case .int64(let i): out += String(i)
        case .double(let d): appendDouble(d, to: &out)
        case .bool(let b): out += b ? "true" : "false"
        case .date(let d): appendDouble(d.timeIntervalSince1970, to: &out)
        case .bytes(let d): appendString(d.base64EncodedString(), to: &out)
        case .location(let l):
            out += "["
            appendDouble(l.latitude, to: &out)
            out += ","
            appendDouble(l.longitude, to: &out)
            out += "]"
        case .reference(let r): appendString(r.recordID.recordName, to: &out)
        case .asset(let a): appendString(a.contentDigest ?? "", to: &out)
        case .list: out += "null"
        }
    }

    private static func appendExtra(_ value: FieldValue, to out: inout String) {
        switch value {
        case .location(let l):
            if let alt = l.altitude { appendDouble(alt, to: &out) } else { out += "null" }
        case .reference(let r):
            out += "["
            appendString(r.recordID.zoneID.zoneName, to: &out)
            out += ","
            appendString(r.recordID.zoneID.ownerName, to: &out)
            out += ",\(r.action.rawValue)]"
        case .asset(let a): out += a.size.map { String($0) } ?? "null"
        default: out += "null"
        }
    }

    private static func appendDouble(_ d: Double, to out: inout String) {
        if d.isFinite { out += "\(d)" } else { out += "null" }
    }

    private static func appendString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    // MARK: Decoding

    /// Decodes stored fields. `assetURL` turns a digest into the local file's URL.
    static func decode(_ json: String, assetURL: (String) -> URL?) -> [String: FieldValue] {
        guard let parsed = JSONTree.parse(json), case .object(let members) = parsed else { return [:] }
        var fields: [String: FieldValue] = [:]
        fields.reserveCapacity(members.count)
        for (key, entry) in members {
            guard let kind = entry["t"]?.stringValue else { continue }
            if kind == "list" {
                let element = entry["e"]?.stringValue ?? "string"
                let values = entry["v"]?.arrayValue ?? []
                let extras = entry["x"]?.arrayValue
                var items: [FieldValue] = []
                items.reserveCapacity(values.count)
                for (i, v) in values.enumerated() {
                    let extra = extras.flatMap { i < $0.count ? $0[i] : nil }
                    if let item = scalar(kind: element, value: v, extra: extra, assetURL: assetURL) { items.append(item) }
                }
                fields[key] = .list(items)
            } else if let value = entry["v"],
                      let item = scalar(kind: kind, value: value, extra: entry["x"], assetURL: assetURL) {
                fields[key] = item
            }
        }
        return fields
    }

    private static func scalar(kind: String, value: JSONTree, extra: JSONTree?, assetURL: (String) -> URL?) -> FieldValue? {
        switch kind {
        case "string": return value.stringValue.map(FieldValue.string)
        case "int64": return value.int64.map(FieldValue.int64)
        case "double": return value.number.map(FieldValue.double)
        case "bool":
            if case .bool(let b) = value { return .bool(b) }
            return value.int64.map { .bool($0 != 0) }
        case "date": return value.number.map { .date(Date(timeIntervalSince1970: $0)) }
        case "bytes": return value.stringValue.flatMap { Data(base64Encoded: $0) }.map(FieldValue.bytes)
        case "location":
            guard let pair = value.arrayValue, pair.count == 2, let lat = pair[0].number, let lon = pair[1].number else { return nil }
            return .location(Location(latitude: lat, longitude: lon, altitude: extra?.number))
        case "reference":
            guard let name = value.stringValue else { return nil }
            let parts = extra?.arrayValue ?? []
            let zone = parts.count > 0 ? parts[0].stringValue : nil
            let owner = parts.count > 1 ? parts[1].stringValue : nil
            let action = parts.count > 2 ? parts[2].int64 : nil
            let zoneID = RecordZone.ID(zoneName: zone ?? RecordZone.ID.defaultZoneName,
                                       ownerName: owner ?? RecordZone.ID.currentUserName)
            return .reference(Record.Reference(recordID: Record.ID(recordName: name, zoneID: zoneID),
                                               action: Record.Reference.Action(rawValue: Int(action ?? 0)) ?? .none))
        case "asset":
            guard let digest = value.stringValue else { return nil }
            return .asset(Asset(fileURL: assetURL(digest), contentDigest: digest, size: extra?.int64))
        default: return nil
        }
    }
}

extension FieldValue {
    var hasExtra: Bool {
        switch self {
        case .location, .reference, .asset: true
        default: false
        }
    }
}
