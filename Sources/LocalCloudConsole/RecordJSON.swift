import Foundation
import LocalCloud

/// Records as JSON objects, for `--json` output and for `records export`/`import`.
///
/// ```json
/// {"recordName": "…", "recordType": "Restaurant", "zone": "_defaultZone",
///  "createdBy": "alice", "createdAt": "2026-01-01T12:00:00.000Z", …,
///  "fields": {"name": {"type": "STRING", "value": "Cafe Deadend"},
///             "image": {"type": "ASSET", "file": "restaurants.json.assets/3f2a…"}}}
/// ```
/// Types: STRING, INT64, BOOL, DOUBLE, TIMESTAMP (ISO 8601), BYTES (base64),
/// LOCATION ({latitude, longitude, altitude?}), REFERENCE ({recordName, zone, action}),
/// ASSET ({file}), and LIST<…> whose value is an array of the element's values.
enum RecordJSON {
    static func date(_ date: Date?) -> Any {
        guard let date else { return NSNull() }
        return formatter(fractional: true).string(from: date)
    }

    /// ISO 8601 in UTC, with milliseconds: `2026-01-01T12:00:00.000Z`.
    static func formatter(fractional: Bool) -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = fractional ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return formatter
    }

    static func parseDate(_ text: String) -> Date? {
        formatter(fractional: true).date(from: text) ?? formatter(fractional: false).date(from: text)
    }

    static func userName(_ id: Record.ID?) -> Any {
        guard let name = id?.recordName else { return NSNull() }
        return name.hasPrefix("_") ? String(name.dropFirst()) : name
    }

    /// The record as a JSON object; `asset` decides what an asset field names (its local file by default).
    static func object(_ record: Record, asset: (Asset) throws -> String? = { $0.fileURL?.path }) throws -> [String: Any] {
        var fields: [String: Any] = [:]
        for key in record.allKeys() {
            guard let value = record[key] else { continue }
            fields[key] = try encode(value, asset: asset)
        }
        return [
            "recordName": record.recordID.recordName,
            "recordType": record.recordType,
            "zone": record.recordID.zoneID.zoneName,
            "createdBy": userName(record.creatorUserRecordID),
            "createdAt": date(record.creationDate),
            "modifiedBy": userName(record.lastModifiedUserRecordID),
            "modifiedAt": date(record.modificationDate),
            "changeTag": record.recordChangeTag ?? NSNull(),
            "fields": fields,
        ]
    }

    private static func scalar(_ value: Any, asset: (Asset) throws -> String?) throws -> (type: String, value: Any)? {
        switch value {
        case let v as String: return ("STRING", v)
        case let v as Int64: return ("INT64", v)
        case let v as Int: return ("INT64", v)
        case let v as Bool: return ("BOOL", v)
        case let v as Double: return ("DOUBLE", v)
        case let v as Date: return ("TIMESTAMP", date(v))
        case let v as Data: return ("BYTES", v.base64EncodedString())
        case let v as Location:
            var object: [String: Any] = ["latitude": v.latitude, "longitude": v.longitude]
            if let altitude = v.altitude { object["altitude"] = altitude }
            return ("LOCATION", object)
        case let v as Record.Reference:
            return ("REFERENCE", ["recordName": v.recordID.recordName, "zone": v.recordID.zoneID.zoneName,
                                  "action": v.action == .deleteSelf ? "deleteSelf" : "none"])
        case let v as Asset:
            return ("ASSET", try asset(v) ?? NSNull())
        default:
            return nil
        }
    }

    static func encode(_ value: any RecordValue, asset: (Asset) throws -> String?) throws -> [String: Any] {
        if let (type, encoded) = try scalar(value, asset: asset) {
            return type == "ASSET" ? ["type": type, "file": encoded] : ["type": type, "value": encoded]
        }
        if let items = value as? [Any] {
            var elementType = "STRING"
            var values: [Any] = []
            for item in items {
                guard let (type, encoded) = try scalar(item, asset: asset) else { continue }
                elementType = type
                values.append(encoded)
            }
            return ["type": "LIST<\(elementType)>", "value": values]
        }
        return ["type": "UNKNOWN", "value": String(describing: value)]
    }

    /// A field value from its JSON form; assets resolve their `file` against `base`.
    static func decode(_ object: [String: Any], field: String, base: URL) throws -> any RecordValue {
        guard let type = object["type"] as? String else { throw bad(field, "has no type") }
        if type.hasPrefix("LIST<"), type.hasSuffix(">") {
            let element = String(type.dropFirst(5).dropLast())
            let items = object["value"] as? [Any] ?? []
            let decoded = try items.map { try decodeScalar(element, $0, field: field, base: base) }
            return try typedList(element, decoded, field: field)
        }
        return try decodeScalar(type, type == "ASSET" ? object["file"] as Any : object["value"] as Any, field: field, base: base)
    }

    private static func typedList(_ element: String, _ items: [any RecordValue], field: String) throws -> any RecordValue {
        switch element {
        case "STRING": items.compactMap { $0 as? String }
        case "INT64": items.compactMap { $0 as? Int64 }
        case "BOOL": items.compactMap { $0 as? Bool }
        case "DOUBLE": items.compactMap { $0 as? Double }
        case "TIMESTAMP": items.compactMap { $0 as? Date }
        case "BYTES": items.compactMap { $0 as? Data }
        case "LOCATION": items.compactMap { $0 as? Location }
        case "REFERENCE": items.compactMap { $0 as? Record.Reference }
        case "ASSET": items.compactMap { $0 as? Asset }
        default: throw bad(field, "has unknown list type LIST<\(element)>")
        }
    }

    private static func decodeScalar(_ type: String, _ value: Any, field: String, base: URL) throws -> any RecordValue {
        switch type {
        case "STRING":
            if let v = value as? String { return v }
        case "INT64":
            if let v = value as? NSNumber { return v.int64Value }
        case "BOOL":
            if let v = value as? Bool { return v }
        case "DOUBLE":
            if let v = value as? NSNumber { return v.doubleValue }
        case "TIMESTAMP":
            if let text = value as? String, let date = parseDate(text) { return date }
        case "BYTES":
            if let text = value as? String, let data = Data(base64Encoded: text) { return data }
        case "LOCATION":
            if let object = value as? [String: Any], let lat = object["latitude"] as? NSNumber, let lon = object["longitude"] as? NSNumber {
                return Location(latitude: lat.doubleValue, longitude: lon.doubleValue, altitude: (object["altitude"] as? NSNumber)?.doubleValue)
            }
        case "REFERENCE":
            if let object = value as? [String: Any], let name = object["recordName"] as? String {
                let zone = object["zone"] as? String ?? RecordZone.ID.defaultZoneName
                return Record.Reference(recordID: Record.ID(recordName: name, zoneID: RecordZone.ID(zoneName: zone)),
                                        action: object["action"] as? String == "deleteSelf" ? .deleteSelf : .none)
            }
        case "ASSET":
            if let path = value as? String {
                return Asset(fileURL: path.hasPrefix("/") ? URL(fileURLWithPath: path) : base.appendingPathComponent(path))
            }
        default:
            throw bad(field, "has unknown type \(type)")
        }
        throw bad(field, "is not a valid \(type) value")
    }

    static func bad(_ field: String, _ problem: String) -> CloudError {
        CloudError(.invalidArguments, "Field '\(field)' \(problem)")
    }
}
