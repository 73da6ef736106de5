import Foundation
import LocalCloud

/// A record as a JSON object, for `--json` output and for `records export`/`import`.
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
/// Unknown metadata is written as `null`, never left out.
struct RecordJSON: Codable {
    var recordName: String
    var recordType: String
    var zone: String
    var createdBy: String?
    var createdAt: String?
    var modifiedBy: String?
    var modifiedAt: String?
    var changeTag: String?
    var fields: [String: FieldJSON]

    /// The record; `asset` decides what an asset field names (its local file by default).
    init(_ record: Record, asset: (Asset) throws -> String? = { $0.fileURL?.path }) throws {
        recordName = record.recordID.recordName
        recordType = record.recordType
        zone = record.recordID.zoneID.zoneName
        createdBy = Self.userName(record.creatorUserRecordID)
        createdAt = record.creationDate.map(Self.date)
        modifiedBy = Self.userName(record.lastModifiedUserRecordID)
        modifiedAt = record.modificationDate.map(Self.date)
        changeTag = record.recordChangeTag
        fields = [:]
        for key in record.allKeys() {
            guard let value = record[key] else { continue }
            fields[key] = try FieldJSON(value, asset: asset)
        }
    }

    private enum CodingKeys: String, CodingKey {
        case recordName, recordType, zone, createdBy, createdAt, modifiedBy, modifiedAt, changeTag, fields
    }

    func encode(to encoder: any Encoder) throws {
        var keyed = encoder.container(keyedBy: CodingKeys.self)
        try keyed.encode(recordName, forKey: .recordName)
        try keyed.encode(recordType, forKey: .recordType)
        try keyed.encode(zone, forKey: .zone)
        // Optionals through encode(_:forKey:): `null`, as scripts expect the keys to be there.
        try keyed.encode(createdBy, forKey: .createdBy)
        try keyed.encode(createdAt, forKey: .createdAt)
        try keyed.encode(modifiedBy, forKey: .modifiedBy)
        try keyed.encode(modifiedAt, forKey: .modifiedAt)
        try keyed.encode(changeTag, forKey: .changeTag)
        try keyed.encode(fields, forKey: .fields)
    }

    /// An export's record: only `recordName` and `recordType` are required.
    init(from decoder: any Decoder) throws {
        let keyed = try decoder.container(keyedBy: CodingKeys.self)
        recordName = try keyed.decode(String.self, forKey: .recordName)
        recordType = try keyed.decode(String.self, forKey: .recordType)
        zone = (try? keyed.decodeIfPresent(String.self, forKey: .zone)) ?? RecordZone.ID.defaultZoneName
        createdBy = try? keyed.decodeIfPresent(String.self, forKey: .createdBy)
        createdAt = try? keyed.decodeIfPresent(String.self, forKey: .createdAt)
        modifiedBy = try? keyed.decodeIfPresent(String.self, forKey: .modifiedBy)
        modifiedAt = try? keyed.decodeIfPresent(String.self, forKey: .modifiedAt)
        changeTag = try? keyed.decodeIfPresent(String.self, forKey: .changeTag)
        // As before Codable: fields that are not objects are ignored, not an error.
        fields = (try? keyed.decodeIfPresent([String: FieldJSON].self, forKey: .fields)) ?? [:]
    }

    /// ISO 8601 in UTC, with milliseconds: `2026-01-01T12:00:00.000Z`.
    static func date(_ date: Date) -> String {
        formatter(fractional: true).string(from: date)
    }

    static func formatter(fractional: Bool) -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = fractional ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return formatter
    }

    static func parseDate(_ text: String) -> Date? {
        formatter(fractional: true).date(from: text) ?? formatter(fractional: false).date(from: text)
    }

    /// `alice` for the user record `_alice`.
    static func userName(_ id: Record.ID?) -> String? {
        guard let name = id?.recordName else { return nil }
        return name.hasPrefix("_") ? String(name.dropFirst()) : name
    }
}

/// One field: `{"type": "STRING", "value": …}`, or for an asset `{"type": "ASSET", "file": …}`
/// (a path, or `null` for an asset fetched without its file).
struct FieldJSON: Codable {
    /// STRING, INT64, BOOL, DOUBLE, TIMESTAMP, BYTES, LOCATION, REFERENCE, ASSET, LIST<…> or UNKNOWN;
    /// `nil` only when read from a file that left it out.
    var type: String?
    /// The value, or for an ASSET the file: the one JSON model, ``JSONValue``.
    var value: JSONValue

    /// A number in a field's value, as JSONSerialization's `NSNumber` read one: a bool is 1 or 0.
    static func number(_ value: JSONValue) -> Double? {
        if case .bool(let bool) = value { return bool ? 1 : 0 }
        return value.doubleValue
    }

    private enum CodingKeys: String, CodingKey {
        case type, value, file
    }

    init(type: String, value: JSONValue) {
        self.type = type
        self.value = value
    }

    func encode(to encoder: any Encoder) throws {
        var keyed = encoder.container(keyedBy: CodingKeys.self)
        try keyed.encode(type, forKey: .type)
        try keyed.encode(value, forKey: type == "ASSET" ? .file : .value)
    }

    init(from decoder: any Decoder) throws {
        let keyed = try decoder.container(keyedBy: CodingKeys.self)
        type = try? keyed.decodeIfPresent(String.self, forKey: .type)
        value = try keyed.decodeIfPresent(JSONValue.self, forKey: type == "ASSET" ? .file : .value) ?? .null
    }

    // MARK: From a record's value

    init(_ value: any RecordValue, asset: (Asset) throws -> String?) throws {
        if let (type, encoded) = try Self.scalar(value, asset: asset) {
            self.init(type: type, value: encoded)
            return
        }
        if let items = value as? [Any] {
            var elementType = "STRING"
            var values: [JSONValue] = []
            for item in items {
                guard let (type, encoded) = try Self.scalar(item, asset: asset) else { continue }
                elementType = type
                values.append(encoded)
            }
            self.init(type: "LIST<\(elementType)>", value: .array(values))
            return
        }
        self.init(type: "UNKNOWN", value: .string(String(describing: value)))
    }

    private static func scalar(_ value: Any, asset: (Asset) throws -> String?) throws -> (type: String, value: JSONValue)? {
        switch value {
        case let v as String: return ("STRING", .string(v))
        case let v as Int64: return ("INT64", .int(v))
        case let v as Int: return ("INT64", .int(Int64(v)))
        case let v as Bool: return ("BOOL", .bool(v))
        case let v as Double: return ("DOUBLE", .number(v))
        case let v as Date: return ("TIMESTAMP", .string(RecordJSON.date(v)))
        case let v as Data: return ("BYTES", .string(v.base64EncodedString()))
        case let v as Location:
            var object: [String: JSONValue] = ["latitude": .number(v.latitude), "longitude": .number(v.longitude)]
            if let altitude = v.altitude { object["altitude"] = .number(altitude) }
            return ("LOCATION", .object(object))
        case let v as Record.Reference:
            return ("REFERENCE", .object(["recordName": .string(v.recordID.recordName), "zone": .string(v.recordID.zoneID.zoneName),
                                          "action": .string(v.action == .deleteSelf ? "deleteSelf" : "none")]))
        case let v as Asset:
            return ("ASSET", try asset(v).map(JSONValue.string) ?? .null)
        default:
            return nil
        }
    }

    // MARK: To a record's value

    /// The field's value; assets resolve their `file` against `base`.
    ///
    /// - Throws: `invalidArguments` naming `field` when the type is missing or unknown, or the value does not fit it.
    func recordValue(field: String, base: URL) throws -> any RecordValue {
        guard let type else { throw Self.bad(field, "has no type") }
        if type.hasPrefix("LIST<"), type.hasSuffix(">") {
            let element = String(type.dropFirst(5).dropLast())
            let items: [JSONValue] = if case .array(let items) = value { items } else { [] }
            let decoded = try items.map { try Self.scalar(element, $0, field: field, base: base) }
            return try Self.typedList(element, decoded, field: field)
        }
        return try Self.scalar(type, value, field: field, base: base)
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

    private static func scalar(_ type: String, _ value: JSONValue, field: String, base: URL) throws -> any RecordValue {
        switch (type, value) {
        case ("STRING", .string(let v)):
            return v
        case ("INT64", .int(let v)):
            return v
        case ("INT64", _):
            // As JSONSerialization's NSNumber.int64Value: a fraction is truncated.
            if let number = Self.number(value), abs(number) < 9.3e18 { return Int64(number) }
        case ("BOOL", .bool(let v)):
            return v
        case ("BOOL", .int(let v)) where v == 0 || v == 1:
            return v == 1
        case ("DOUBLE", _):
            if let number = Self.number(value) { return number }
        case ("TIMESTAMP", .string(let text)):
            if let date = RecordJSON.parseDate(text) { return date }
        case ("BYTES", .string(let text)):
            if let data = Data(base64Encoded: text) { return data }
        case ("LOCATION", .object(let object)):
            if let lat = object["latitude"].flatMap(Self.number), let lon = object["longitude"].flatMap(Self.number) {
                return Location(latitude: lat, longitude: lon, altitude: object["altitude"].flatMap(Self.number))
            }
        case ("REFERENCE", .object(let object)):
            if case .string(let name)? = object["recordName"] {
                let zone: String = if case .string(let zone)? = object["zone"] { zone } else { RecordZone.ID.defaultZoneName }
                let deleteSelf: Bool = if case .string("deleteSelf")? = object["action"] { true } else { false }
                return Record.Reference(recordID: Record.ID(recordName: name, zoneID: RecordZone.ID(zoneName: zone)),
                                        action: deleteSelf ? .deleteSelf : .none)
            }
        case ("ASSET", .string(let path)):
            return Asset(fileURL: path.hasPrefix("/") ? URL(fileURLWithPath: path) : base.appendingPathComponent(path))
        case ("STRING", _), ("BOOL", _), ("TIMESTAMP", _), ("BYTES", _), ("LOCATION", _), ("REFERENCE", _), ("ASSET", _):
            break
        default:
            throw bad(field, "has unknown type \(type)")
        }
        throw bad(field, "is not a valid \(type) value")
    }

    static func bad(_ field: String, _ problem: String) -> CloudError {
        CloudError(.invalidArguments, "Field '\(field)' \(problem)")
    }
}
