@_spi(Fuzzing) import LocalCloud

/// Each database operation's request body decoded as its handler decodes it, up to the point where
/// the handler would touch the database, for the libFuzzer harnesses in `Fuzz/`. Not API: `@_spi(Fuzzing)`.
///
/// Every step calls the handler's own decoding (``CloudServer/parseBody(_:method:)``,
/// ``DatabaseCallBody``, `Query(webServices:)`, ``CloudServer/recordOperation(_:_:zone:index:assets:)``,
/// ``SyncTokenCoding``, ``QueryCursorCoding``, ``CloudServer/zoneIDs(_:key:)``, `Subscription.webServices`).
/// A rejected body throws; nothing may crash.
@_spi(Fuzzing) public enum RequestBodyDecoding {
    /// The operations whose bodies ``decode(_:operation:)`` knows.
    public static let operations = [
        "records/query", "records/lookup", "records/modify", "records/changes",
        "zones/lookup", "zones/modify", "changes/database", "changes/zone",
        "subscriptions/lookup", "subscriptions/modify", "assets/upload",
    ]

    /// Decodes `bytes` as the body of a POST to `operation`.
    /// - Throws: the error the server would answer with (BAD_REQUEST and the like).
    public static func decode(_ bytes: [UInt8], operation: String) throws {
        let body = DatabaseCallBody(try CloudServer.parseBody(bytes, method: .post))
        let assets = AssetWireMapping(downloadURL: { "http://localhost/assets/1/fuzz/development/\($0)" }, exists: { _ in true })
        switch operation {
        case "records/query":
            _ = try CloudServer.resultsLimit(body.json["resultsLimit"], maximum: CloudServer.maximumResultsLimit)
            _ = try body.desiredKeys()
            if let marker = body.json["continuationMarker"], marker != .null {
                guard let text = marker.stringValue, let cursor = QueryCursorCoding.decode(text) else {
                    throw ServerError(.badRequest, "continuationMarker is not one this server issued")
                }
                FuzzTargets.queryCursor(cursor)
            } else {
                guard let queryJSON = body.json["query"] else { throw ServerError(.badRequest, "'query' is missing") }
                let query = try Query(webServices: queryJSON)
                _ = try body.zoneID()
                FuzzTargets.query(query)
            }
        case "records/lookup":
            let zone = try body.zoneID()
            _ = try body.array("records", max: CloudServer.maximumItems).map { try Record.ID(webServices: $0, zoneID: zone) }
            _ = try body.desiredKeys()
        case "records/modify":
            let zone = try body.zoneID()
            for (index, item) in try body.array("operations", max: CloudServer.maximumItems).enumerated() {
                guard let type = item["operationType"]?.stringValue else {
                    throw ServerError(.badRequest, "operations[\(index)].operationType is missing")
                }
                guard let recordJSON = item["record"] else { throw ServerError(.badRequest, "operations[\(index)].record is missing") }
                _ = try CloudServer.recordOperation(type, recordJSON, zone: zone, index: index, assets: assets)
            }
            _ = try body.desiredKeys()
        case "records/changes":
            try recordChanges(body)
        case "zones/lookup":
            _ = try CloudServer.zoneIDs(try body.array("zones", max: CloudServer.maximumItems), key: "zones")
        case "zones/modify":
            for (index, operation) in try body.array("operations", max: CloudServer.maximumItems).enumerated() {
                guard operation["operationType"]?.stringValue != nil, let zone = operation["zone"] else {
                    throw ServerError(.badRequest, "operations[\(index)] needs operationType and zone")
                }
                _ = try CloudServer.zoneIDs([zone], key: "operations[\(index)].zone")
            }
        case "changes/database":
            _ = try SyncTokenCoding.decode(body.json["syncToken"])
            _ = try CloudServer.resultsLimit(body.json["resultsLimit"], maximum: CloudServer.maximumItems)
        case "changes/zone":
            for (index, request) in try body.array("zones", max: CloudServer.maximumItems).enumerated() {
                guard request["zoneID"] != nil else { throw ServerError(.badRequest, "zones[\(index)].zoneID is missing") }
                try? recordChanges(DatabaseCallBody(.object(request.objectValue ?? [:])))
            }
        case "subscriptions/lookup":
            _ = try body.array("subscriptions", max: CloudServer.maximumItems)
        case "subscriptions/modify":
            for item in try body.array("operations", max: CloudServer.maximumItems) {
                guard let json = item["subscription"], json.objectValue != nil else { continue }
                _ = try? Subscription.webServices(json)
            }
        case "assets/upload":
            _ = try body.array("tokens", max: CloudServer.maximumItems)
        default:
            throw ServerError(.badRequest, "Unknown operation \(operation)")
        }
    }

    /// A continuation marker as `records/query` reads one; `nil` when the server would refuse it.
    public static func continuationMarker(_ text: String) -> Query.Cursor? {
        QueryCursorCoding.decode(text)
    }

    /// A `syncToken` as the change endpoints read one.
    /// - Throws: BAD_REQUEST when it is not one this server issued.
    public static func syncToken(_ text: String) throws -> ServerChangeToken? {
        try SyncTokenCoding.decode(.string(text))
    }

    private static func recordChanges(_ body: DatabaseCallBody) throws {
        _ = try body.zoneID()
        _ = try CloudServer.resultsLimit(body.json["resultsLimit"], maximum: CloudServer.maximumResultsLimit)
        _ = try SyncTokenCoding.decode(body.json["syncToken"])
        _ = try body.json["desiredRecordTypes"].flatMap { try body.desiredKeys($0) }
        _ = try body.desiredKeys()
    }
}
