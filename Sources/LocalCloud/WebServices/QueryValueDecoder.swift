import Foundation

/// Decodes the `fieldValue` of a CloudKit Web Services query filter (`{value, type?}`) into the
/// ``FieldValue`` a predicate compares with.
///
/// ```swift
/// // {"value": 1700000000000, "type": "TIMESTAMP"} → .date(2023-11-14 22:13:20 +0000)
/// let value = try QueryValueDecoder.decode(filter["fieldValue"], at: "query.filterBy[0].fieldValue")
/// ```
/// Stands in for the general record-value codec (`FieldValue(webServices:)`) until the two are
/// folded together; it knows only what a comparison needs, so assets are refused.
///
/// Without `type`, the type comes from the JSON: a string is STRING, an integer INT64, another
/// number DOUBLE, a Boolean a Boolean, an object with `latitude` and `longitude` LOCATION, one
/// with `recordName` REFERENCE, and an array a list of those. Timestamps are milliseconds since
/// 1970 and need `"type": "TIMESTAMP"` on user fields (a bare number is INT64). A `_LIST` type
/// with a single value is one element of that type, as a LIST_CONTAINS filter may send it.
enum QueryValueDecoder {
    /// The most values a list may hold: every one becomes a bound SQL argument.
    static let maximumListCount = 1_000

    /// The CloudKit Web Services scalar types this decoder reads, as `type` spells them.
    static let scalarTypes = ["STRING", "INT64", "DOUBLE", "TIMESTAMP", "BYTES", "REFERENCE", "LOCATION", "BOOLEAN"]

    /// Decodes a `fieldValue` dictionary.
    ///
    /// - Parameters:
    ///   - json: the `fieldValue` dictionary, or `nil` when the key is missing.
    ///   - path: where it sits in the request, for error messages (`query.filterBy[2].fieldValue`).
    ///   - defaultType: the type to assume when `type` is absent (`TIMESTAMP` for `___createTime`).
    /// - Throws: `CloudError(.invalidArguments)` naming the key that is wrong and why.
    static func decode(_ json: JSONValue?, at path: String, defaultType: String? = nil) throws -> FieldValue {
        guard let json else { throw error(path, "is missing") }
        guard case .object(let dictionary) = json else {
            throw error(path, "must be a dictionary such as {\"value\": …, \"type\": \"STRING\"}, not \(describe(json))")
        }
        guard let value = dictionary["value"] else { throw error(path + ".value", "is missing") }
        var type = defaultType
        if let typeJSON = dictionary["type"] {
            guard case .string(let name) = typeJSON else {
                throw error(path + ".type", "must be a string such as \"STRING\", not \(describe(typeJSON))")
            }
            type = name
        }
        guard let type else { return try inferred(value, at: path + ".value") }
        if type.hasSuffix("_LIST") {
            let elementType = String(type.dropLast("_LIST".count))
            guard scalarTypes.contains(elementType) else { throw unknownType(type, at: path + ".type") }
            // The type may name the list field while the value is one element (LIST_CONTAINS).
            guard case .array(let items) = value else { return try scalar(value, type: elementType, at: path + ".value") }
            try checkCount(items, at: path + ".value")
            return .list(try items.enumerated().map { try scalar($1, type: elementType, at: "\(path).value[\($0)]") })
        }
        guard scalarTypes.contains(type) else { throw unknownType(type, at: path + ".type") }
        if case .array(let items) = value {
            // A list given with its element type (`{"value": ["a", "b"], "type": "STRING"}`).
            try checkCount(items, at: path + ".value")
            return .list(try items.enumerated().map { try scalar($1, type: type, at: "\(path).value[\($0)]") })
        }
        return try scalar(value, type: type, at: path + ".value")
    }

    /// A value without a `type`: taken from the JSON itself.
    private static func inferred(_ value: JSONValue, at path: String) throws -> FieldValue {
        if case .array(let items) = value {
            try checkCount(items, at: path)
            return .list(try items.enumerated().map { index, item in
                if case .array = item { throw error("\(path)[\(index)]", "is a nested array, which queries cannot use") }
                return try scalar(item, type: inferredType(item, at: "\(path)[\(index)]"), at: "\(path)[\(index)]")
            })
        }
        return try scalar(value, type: inferredType(value, at: path), at: path)
    }

    private static func inferredType(_ value: JSONValue, at path: String) throws -> String {
        switch value {
        case .string: return "STRING"
        case .int: return "INT64"
        case .number: return "DOUBLE"
        case .bool: return "BOOLEAN"
        case .object(let dictionary) where dictionary["latitude"] != nil && dictionary["longitude"] != nil: return "LOCATION"
        case .object(let dictionary) where dictionary["recordName"] != nil: return "REFERENCE"
        case .object:
            throw error(path, "is a dictionary that is neither a location ({latitude, longitude}) nor a reference ({recordName}); give its \"type\"")
        case .null: throw error(path, "is null; queries cannot compare with null")
        case .array: throw error(path, "is a nested array, which queries cannot use")
        }
    }

    /// One scalar of CloudKit Web Services type `type`.
    static func scalar(_ value: JSONValue, type: String, at path: String) throws -> FieldValue {
        switch type {
        case "STRING":
            guard case .string(let string) = value else { throw mismatch(value, type, at: path) }
            return .string(string)
        case "INT64":
            // `numbersAsStrings` requests carry integers as strings.
            if case .string(let text) = value, let int = Int64(text) { return .int64(int) }
            guard let int = value.int64Value else { throw mismatch(value, type, at: path) }
            return .int64(int)
        case "DOUBLE":
            if case .string(let text) = value, let double = Double(text), double.isFinite { return .double(double) }
            guard let double = value.doubleValue else { throw mismatch(value, type, at: path) }
            guard double.isFinite else { throw error(path, "is not a finite number") }
            return .double(double)
        case "BOOLEAN":
            guard case .bool(let bool) = value else { throw mismatch(value, type, at: path) }
            return .bool(bool)
        case "TIMESTAMP":
            return .date(try timestamp(value, at: path))
        case "BYTES":
            guard case .string(let base64) = value else { throw mismatch(value, type, at: path) }
            guard let data = Data(base64Encoded: base64) else { throw error(path, "is not valid base64 for BYTES") }
            return .bytes(data)
        case "REFERENCE":
            return .reference(try reference(value, at: path))
        case "LOCATION":
            return .location(try location(value, at: path))
        default:
            throw unknownType(type, at: path)
        }
    }

    /// Milliseconds since 1970, within JavaScript's date range (±8.64e15 ms).
    static func timestamp(_ value: JSONValue, at path: String) throws -> Date {
        guard let milliseconds = value.doubleValue ?? value.stringValue.flatMap(Double.init) else {
            throw mismatch(value, "TIMESTAMP", at: path)
        }
        guard milliseconds.isFinite, abs(milliseconds) <= 8.64e15 else {
            throw error(path, "is not a timestamp: milliseconds since 1970 must be finite and within ±8.64e15")
        }
        return Date(timeIntervalSince1970: milliseconds / 1000)
    }

    /// `{recordName, zoneID?: {zoneName, ownerName?}, action?}`, or a bare record name.
    static func reference(_ value: JSONValue, at path: String) throws -> Record.Reference {
        if case .string(let name) = value {
            guard !name.isEmpty else { throw error(path, "is an empty record name") }
            return Record.Reference(recordID: Record.ID(recordName: name), action: .none)
        }
        guard case .object(let dictionary) = value else { throw mismatch(value, "REFERENCE", at: path) }
        guard case .string(let name)? = dictionary["recordName"], !name.isEmpty else {
            throw error(path + ".recordName", dictionary["recordName"] == nil ? "is missing" : "must be a non-empty string")
        }
        var zone = RecordZone.ID.default
        if let zoneJSON = dictionary["zoneID"] {
            guard case .object(let zoneDictionary) = zoneJSON else {
                throw error(path + ".zoneID", "must be a dictionary such as {\"zoneName\": \"_defaultZone\"}, not \(describe(zoneJSON))")
            }
            guard case .string(let zoneName)? = zoneDictionary["zoneName"], !zoneName.isEmpty else {
                throw error(path + ".zoneID.zoneName", zoneDictionary["zoneName"] == nil ? "is missing" : "must be a non-empty string")
            }
            zone = RecordZone.ID(zoneName: zoneName)
            // The reference spells it ownerRecordName; ownerName is accepted too.
            if let owner = zoneDictionary["ownerRecordName"] ?? zoneDictionary["ownerName"] {
                guard case .string(let ownerName) = owner, !ownerName.isEmpty else {
                    throw error(path + ".zoneID.ownerName", "must be a non-empty string")
                }
                zone.ownerName = ownerName
            }
        }
        var action = Record.Reference.Action.none
        if let actionJSON = dictionary["action"] {
            switch actionJSON.stringValue {
            case "NONE": action = .none
            case "DELETE_SELF": action = .deleteSelf
            default: throw error(path + ".action", "must be \"NONE\" or \"DELETE_SELF\", not \(describe(actionJSON))")
            }
        }
        return Record.Reference(recordID: Record.ID(recordName: name, zoneID: zone), action: action)
    }

    /// `{latitude, longitude, altitude?, …}` in degrees; the other keys of the Location
    /// dictionary (accuracy, speed, course, timestamp) do not matter to a query.
    static func location(_ value: JSONValue, at path: String) throws -> Location {
        guard case .object(let dictionary) = value else { throw mismatch(value, "LOCATION", at: path) }
        func degrees(_ key: String, limit: Double) throws -> Double {
            guard let json = dictionary[key] else { throw error("\(path).\(key)", "is missing") }
            guard let number = json.doubleValue, number.isFinite else {
                throw error("\(path).\(key)", "must be a number of degrees, not \(describe(json))")
            }
            guard abs(number) <= limit else { throw error("\(path).\(key)", "is \(number), outside ±\(Int(limit)) degrees") }
            return number
        }
        var location = Location(latitude: try degrees("latitude", limit: 90), longitude: try degrees("longitude", limit: 180))
        if let altitude = dictionary["altitude"] {
            guard let metres = altitude.doubleValue, metres.isFinite else {
                throw error(path + ".altitude", "must be a number of metres, not \(describe(altitude))")
            }
            location.altitude = metres
        }
        return location
    }

    private static func checkCount(_ items: [JSONValue], at path: String) throws {
        guard items.count <= maximumListCount else {
            throw error(path, "has \(items.count) values; a query value may hold at most \(maximumListCount)")
        }
    }

    // MARK: Errors

    static func error(_ path: String, _ problem: String) -> CloudError {
        CloudError(.invalidArguments, "\(path) \(problem)")
    }

    private static func mismatch(_ value: JSONValue, _ type: String, at path: String) -> CloudError {
        error(path, "must be \(expected(type)) for type \(type), not \(describe(value))")
    }

    private static func unknownType(_ type: String, at path: String) -> CloudError {
        if type == "ASSET" || type == "ASSETID" || type == "ASSET_LIST" {
            return error(path, "is \(type); assets cannot be queried")
        }
        return error(path, "'\(PredicateRules.clip(type, limit: 40))' is not a type a query can compare: use one of \(scalarTypes.joined(separator: ", ")) or their _LIST forms")
    }

    private static func expected(_ type: String) -> String {
        switch type {
        case "STRING": "a string"
        case "INT64": "an integer"
        case "DOUBLE": "a number"
        case "BOOLEAN": "true or false"
        case "TIMESTAMP": "a number of milliseconds since 1970"
        case "BYTES": "a base64 string"
        case "REFERENCE": "a reference dictionary {recordName, zoneID}"
        case "LOCATION": "a location dictionary {latitude, longitude}"
        default: "a value"
        }
    }

    /// What a JSON value is, for messages; strings are clipped and never echoed raw.
    static func describe(_ json: JSONValue) -> String {
        switch json {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .int(let i): "the integer \(i)"
        case .number(let d): "the number \(d)"
        case .string(let s): "the string \"\(PredicateRules.clip(s, limit: 40))\""
        case .array(let items): "an array of \(items.count)"
        case .object: "a dictionary"
        }
    }
}
