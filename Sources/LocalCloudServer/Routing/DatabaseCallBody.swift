import LocalCloud

/// The parts of a database call's JSON body every endpoint reads the same way, apart from the
/// call itself so the fuzz harness decodes bodies exactly as the handlers do.
struct DatabaseCallBody {
    var json: JSONValue

    init(_ json: JSONValue) {
        self.json = json
    }

    /// The request's `zoneID` (the default zone when absent).
    func zoneID() throws -> RecordZone.ID {
        try RecordZone.ID.webServices(json["zoneID"])
    }

    /// `desiredKeys`: absent or null means every field.
    func desiredKeys(_ value: JSONValue? = nil) throws -> [String]? {
        switch value ?? json["desiredKeys"] {
        case nil, .null?: return nil
        case .array(let items)?:
            return try items.map { item in
                guard let key = item.stringValue else { throw ServerError(.badRequest, "desiredKeys must be an array of strings") }
                return key
            }
        default: throw ServerError(.badRequest, "desiredKeys must be an array of strings")
        }
    }

    /// An array the body must have under `key`.
    func array(_ key: String, max: Int? = nil) throws -> [JSONValue] {
        guard let items = json[key]?.arrayValue else { throw ServerError(.badRequest, "'\(key)' must be an array") }
        if let max, items.count > max {
            throw ServerError(.quotaExceeded, "'\(key)' has \(items.count) items; at most \(max) per request")
        }
        return items
    }
}
