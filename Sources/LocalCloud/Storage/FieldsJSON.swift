import Foundation
import GRDB

/// The stored form of a record's fields: one JSON object, one entry per field.
///
/// Each entry is `{"t": kind, "v": value}` where `v` is the scalar SQL compares and sorts on
/// (`json_extract(fields, '$."name".v')`): strings, integers, doubles, booleans, dates as
/// seconds since 1970, bytes as base64, locations as `[lat, lon]`, references as the target's
/// record name, assets as their SHA-256. Lists are `{"t":"list","e":kind,"v":[…]}`.
/// What SQL never compares (a reference's zone and action, an asset's size, an altitude) sits in `x`.
enum FieldsJSON {
    static func encode(_ fields: [String: FieldValue]) -> String {
        var out = JSONBytes()
        out.bytes.reserveCapacity(256)
        out.append("{")
        var first = true
        for key in fields.keys.sorted() {
            guard let value = fields[key] else { continue }
            if !first { out.append(",") }
            first = false
            out.appendString(key)
            out.append(":")
            appendEntry(value, to: &out)
        }
        out.append("}")
        return String(decoding: out.bytes, as: UTF8.self)
    }

    private static func appendEntry(_ value: FieldValue, to out: inout JSONBytes) {
        out.append("{\"t\":\"")
        out.appendRaw(value.kind)
        out.append("\"")
        if case .list(let items) = value {
            out.append(",\"e\":\"")
            out.appendRaw(items.first?.kind ?? "string")
            out.append("\",\"v\":[")
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(",") }
                appendScalar(item, to: &out)
            }
            out.append("]")
            if items.contains(where: { $0.hasExtra }) {
                out.append(",\"x\":[")
                for (i, item) in items.enumerated() {
                    if i > 0 { out.append(",") }
                    appendExtra(item, to: &out)
                }
                out.append("]")
            }
        } else {
            out.append(",\"v\":")
            appendScalar(value, to: &out)
            if value.hasExtra {
                out.append(",\"x\":")
                appendExtra(value, to: &out)
            }
        }
        out.append("}")
    }

    private static func appendScalar(_ value: FieldValue, to out: inout JSONBytes) {
        switch value {
        case .string(let s): out.appendString(s)
        case .int64(let i): out.appendRaw(String(i))
        case .double(let d): out.appendDouble(d)
        case .bool(let b): out.append(b ? "true" : "false")
        case .date(let d): out.appendDouble(d.timeIntervalSince1970)
        case .bytes(let d): out.appendString(d.base64EncodedString())
        case .location(let l):
            out.append("[")
            out.appendDouble(l.latitude)
            out.append(",")
            out.appendDouble(l.longitude)
            out.append("]")
        case .reference(let r): out.appendString(r.recordID.recordName)
        case .asset(let a): out.appendString(a.contentDigest ?? "")
        case .list: out.append("null")
        }
    }

    private static func appendExtra(_ value: FieldValue, to out: inout JSONBytes) {
        switch value {
        case .location(let l):
            if let alt = l.altitude { out.appendDouble(alt) } else { out.append("null") }
        case .reference(let r):
            out.append("[")
            out.appendString(r.recordID.zoneID.zoneName)
            out.append(",")
            out.appendString(r.recordID.zoneID.ownerName)
            out.append(",")
            out.appendRaw(String(r.action.rawValue))
            out.append("]")
        case .asset(let a):
            if let size = a.size { out.appendRaw(String(size)) } else { out.append("null") }
        default: out.append("null")
        }
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

    /// The kinds whose stored entry may carry an extra (`x`) or an element kind (`e`).
    static let kindsWithExtras: Set<String> = ["asset", "reference", "location", "list"]

    /// One field from the two columns `json_extract` returned for it, starting at `base`: kind
    /// and value. Each column is read with the Swift type its kind implies, which lets GRDB read
    /// it straight from the statement. `extra` and `elementKind` are the entry's `x` and `e`, for
    /// the ``kindsWithExtras``.
    static func field(in row: Row, at base: Int, kind: String, extra: JSONTree?, elementKind: JSONTree?,
                      assetURL: (String) -> URL?) -> FieldValue? {
        // Optional reads test for NULL and decode in one access to the row (each access costs).
        let v = base + 1
        switch kind {
        case "string": return (row[v] as String?).map(FieldValue.string)
        case "int64": return (row[v] as Int64?).map(FieldValue.int64)
        case "double": return (row[v] as Double?).map(FieldValue.double)
        case "bool": return (row[v] as Int64?).map { .bool($0 != 0) }
        case "date": return (row[v] as Double?).map { .date(Date(timeIntervalSince1970: $0)) }
        case "bytes": return (row[v] as String?).flatMap { Data(base64Encoded: $0) }.map(FieldValue.bytes)
        case "asset":
            guard let digest = row[v] as String? else { return nil }
            return .asset(Asset(fileURL: assetURL(digest), contentDigest: digest, size: extra?.int64))
        case "reference":
            guard let name = row[v] as String? else { return nil }
            return scalar(kind: kind, value: .string(name), extra: extra, assetURL: assetURL)
        case "location":
            guard let text = row[v] as String?, let tree = JSONTree.parse(text) else { return nil }
            return scalar(kind: kind, value: tree, extra: extra, assetURL: assetURL)
        case "list":
            guard let text = row[v] as String?, let items = JSONTree.parse(text)?.arrayValue else { return nil }
            let elementKind = elementKind?.stringValue ?? "string"
            let extras = extra?.arrayValue
            return .list(items.enumerated().compactMap { i, item in
                scalar(kind: elementKind, value: item, extra: extras.flatMap { i < $0.count ? $0[i] : nil }, assetURL: assetURL)
            })
        default:
            return nil
        }
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

/// A UTF-8 output buffer: appending bytes is several times cheaper than growing a `String`.
struct JSONBytes {
    var bytes: [UInt8] = []

    mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Text known to need no escaping (kinds, numbers).
    mutating func appendRaw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    mutating func appendDouble(_ d: Double) {
        if d.isFinite { appendRaw(d.description) } else { append("null") }
    }

    mutating func appendString(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = s
        text.withUTF8 { utf8 in
            var start = 0
            for (i, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i]))
                start = i + 1
                switch byte {
                case UInt8(ascii: "\""): append("\\\"")
                case UInt8(ascii: "\\"): append("\\\\")
                case 0x0A: append("\\n")
                case 0x0D: append("\\r")
                case 0x09: append("\\t")
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    append("\\u00")
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0xF)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
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
