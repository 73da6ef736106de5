import Foundation

/// The stored form of a record's fields: one JSON object, one entry per field.
///
/// Each entry is `{"t": kind, "v": value}` where `v` is the scalar SQL compares and sorts on
/// (`json_extract(fields, '$."name".v')`): strings, integers, doubles, booleans, dates as
/// seconds since 1970, bytes as base64, locations as `[lat, lon]`, references as the target's
/// record name, assets as their SHA-256. Lists are `{"t":"list","e":kind,"v":[…]}`.
/// What SQL never compares (a reference's zone and action, an asset's size, an altitude) sits in `x`.
package enum FieldsJSON {
    package static func encode(_ fields: [String: FieldValue]) -> String {
        var out = JSONWriter()
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

    private static func appendEntry(_ value: FieldValue, to out: inout JSONWriter) {
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

    private static func appendScalar(_ value: FieldValue, to out: inout JSONWriter) {
        switch value {
        case .string(let s): out.appendString(s)
        case .int64(let i): out.appendInteger(i)
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

    private static func appendExtra(_ value: FieldValue, to out: inout JSONWriter) {
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
            if let size = a.size { out.appendInteger(size) } else { out.append("null") }
        default: out.append("null")
        }
    }

    // MARK: Decoding

    /// Decodes stored fields. `assetURL` turns a digest into the local file's URL.
    static func decode(_ json: String, assetURL: (String) -> URL?) -> [String: FieldValue] {
        var json = json
        return json.withUTF8 { decode($0, keys: nil, assetURL: assetURL) }
    }

    /// Decodes the stored fields in `bytes`, only the entries named in `keys` when it is given.
    ///
    /// One pass over the text: other entries are skipped without being built, and a wanted
    /// key's name is matched on its bytes and reused, so only values allocate. Reading the
    /// whole object here costs less than one `json_extract` per key in SQL, each of which
    /// looks up SQLite's parse cache and walks its path on every row.
    package static func decode(_ bytes: UnsafeBufferPointer<UInt8>, keys: [String]?, assetURL: (String) -> URL?) -> [String: FieldValue] {
        var parser = JSONParser(bytes: bytes)
        var fields: [String: FieldValue] = [:]
        fields.reserveCapacity(keys?.count ?? 8)
        guard parser.consume(UInt8(ascii: "{")) else { return [:] }
        if parser.consume(UInt8(ascii: "}")) { return fields }
        repeat {
            let name: String?
            if let raw = parser.unescapedStringBytes() {
                if let keys {
                    name = keys.first { $0.hasUTF8(raw) }
                } else {
                    name = String(decoding: raw, as: UTF8.self)
                }
            } else {
                // A name with escapes: decoded, then looked up like any other.
                guard case .string(let decoded)? = parser.value() else { return [:] }
                if let keys, !keys.contains(decoded) { name = nil } else { name = decoded }
            }
            guard parser.consume(UInt8(ascii: ":")) else { return [:] }
            guard let name else {
                guard parser.skipValue() else { return [:] }
                continue
            }
            guard let entry = Entry.parse(&parser) else { return [:] }
            if let value = entry.fieldValue(assetURL: assetURL) { fields[name] = value }
        } while parser.consume(UInt8(ascii: ","))
        return parser.consume(UInt8(ascii: "}")) ? fields : [:]
    }

    /// One stored entry, `{"t": kind, "e": element kind, "v": value, "x": extra}`.
    private struct Entry {
        var kind: StoredKind?
        var elementKind: StoredKind?
        var value: JSONValue?
        var extra: JSONValue?
        /// A reference's `x` (zone, owner, action), read in place by ``referenceExtra(_:)``.
        var referenceExtra: (zoneID: RecordZone.ID, action: Int64)?

        static func parse(_ parser: inout JSONParser) -> Entry? {
            guard parser.consume(UInt8(ascii: "{")) else { return nil }
            var entry = Entry()
            if parser.consume(UInt8(ascii: "}")) { return entry }
            repeat {
                guard let member = parser.unescapedStringBytes(), parser.consume(UInt8(ascii: ":")) else { return nil }
                let letter = member.count == 1 ? member[0] : 0
                switch letter {
                case UInt8(ascii: "t"), UInt8(ascii: "e"):
                    // Kinds are plain ASCII words: matched on their bytes, never made into strings.
                    guard let name = parser.unescapedStringBytes() else { return nil }
                    let kind = StoredKind(name)
                    if letter == UInt8(ascii: "t") { entry.kind = kind } else { entry.elementKind = kind }
                case UInt8(ascii: "v"):
                    guard let value = parser.value() else { return nil }
                    entry.value = value
                case UInt8(ascii: "x"):
                    // A reference's extra is read without building a JSON array: references are
                    // in every shared-database page (`parent`), and most name the default owner.
                    if entry.kind == .reference {
                        var probe = parser
                        if let parts = referenceExtra(&probe) {
                            parser = probe
                            entry.referenceExtra = parts
                            continue
                        }
                    }
                    guard let extra = parser.value() else { return nil }
                    entry.extra = extra.nonNull
                default:
                    guard parser.skipValue() else { return nil }
                }
            } while parser.consume(UInt8(ascii: ","))
            return parser.consume(UInt8(ascii: "}")) ? entry : nil
        }

        /// `[zone, owner, action]` with plain strings, `nil` for anything else (then parsed as JSON).
        private static func referenceExtra(_ parser: inout JSONParser) -> (zoneID: RecordZone.ID, action: Int64)? {
            guard parser.consume(UInt8(ascii: "[")), let zone = parser.unescapedStringBytes(), parser.consume(UInt8(ascii: ",")),
                  let owner = parser.unescapedStringBytes(), parser.consume(UInt8(ascii: ",")),
                  let action = parser.value()?.int64Value, parser.consume(UInt8(ascii: "]")) else { return nil }
            let zoneName = RecordZone.ID.defaultZoneName.hasUTF8(zone) ? RecordZone.ID.defaultZoneName : String(decoding: zone, as: UTF8.self)
            let ownerName = RecordZone.ID.currentUserName.hasUTF8(owner) ? RecordZone.ID.currentUserName : String(decoding: owner, as: UTF8.self)
            return (RecordZone.ID(zoneName: zoneName, ownerName: ownerName), action)
        }

        func fieldValue(assetURL: (String) -> URL?) -> FieldValue? {
            guard let kind, let value else { return nil }
            if kind == .reference, let parts = referenceExtra {
                guard let name = value.stringValue else { return nil }
                return .reference(Record.Reference(recordID: Record.ID(recordName: name, zoneID: parts.zoneID),
                                                   action: Record.Reference.Action(rawValue: Int(parts.action)) ?? .none))
            }
            guard kind == .list else { return FieldsJSON.scalar(kind: kind, value: value, extra: extra, assetURL: assetURL) }
            let element = elementKind ?? .string
            let extras = extra?.arrayValue
            let items = value.arrayValue ?? []
            var list: [FieldValue] = []
            list.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                let itemExtra = extras.flatMap { i < $0.count ? $0[i].nonNull : nil }
                if let decoded = FieldsJSON.scalar(kind: element, value: item, extra: itemExtra, assetURL: assetURL) { list.append(decoded) }
            }
            return .list(list)
        }
    }

    private static func scalar(kind: StoredKind, value: JSONValue, extra: JSONValue?, assetURL: (String) -> URL?) -> FieldValue? {
        switch kind {
        case .string: return value.stringValue.map(FieldValue.string)
        case .int64: return value.int64Value.map(FieldValue.int64)
        case .double: return value.doubleValue.map(FieldValue.double)
        case .bool:
            if case .bool(let b) = value { return .bool(b) }
            return value.int64Value.map { .bool($0 != 0) }
        case .date: return value.doubleValue.map { .date(Date(timeIntervalSince1970: $0)) }
        case .bytes: return value.stringValue.flatMap { Data(base64Encoded: $0) }.map(FieldValue.bytes)
        case .location:
            guard let pair = value.arrayValue, pair.count == 2, let lat = pair[0].doubleValue, let lon = pair[1].doubleValue else { return nil }
            return .location(Location(latitude: lat, longitude: lon, altitude: extra?.doubleValue))
        case .reference:
            guard let name = value.stringValue else { return nil }
            let parts = extra?.arrayValue ?? []
            let zone = parts.count > 0 ? parts[0].stringValue : nil
            let owner = parts.count > 1 ? parts[1].stringValue : nil
            let action = parts.count > 2 ? parts[2].int64Value : nil
            let zoneID = RecordZone.ID(zoneName: zone ?? RecordZone.ID.defaultZoneName,
                                       ownerName: owner ?? RecordZone.ID.currentUserName)
            return .reference(Record.Reference(recordID: Record.ID(recordName: name, zoneID: zoneID),
                                               action: Record.Reference.Action(rawValue: Int(action ?? 0)) ?? .none))
        case .asset:
            guard let digest = value.stringValue else { return nil }
            return .asset(Asset(fileURL: assetURL(digest), contentDigest: digest, size: extra?.int64Value))
        case .list:
            return nil
        }
    }

    /// The `t` (and list `e`) words of stored entries.
    enum StoredKind {
        case string, int64, double, bool, date, bytes, location, reference, asset, list

        private static let names: [(StaticString, StoredKind)] = [
            ("string", .string), ("int64", .int64), ("double", .double), ("bool", .bool), ("date", .date),
            ("bytes", .bytes), ("location", .location), ("reference", .reference), ("asset", .asset), ("list", .list),
        ]

        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let base = bytes.baseAddress,
                  let match = Self.names.first(where: { name, _ in
                      name.utf8CodeUnitCount == bytes.count && memcmp(name.utf8Start, base, bytes.count) == 0
                  })
            else { return nil }
            self = match.1
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
