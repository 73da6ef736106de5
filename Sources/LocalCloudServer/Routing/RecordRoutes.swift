import Foundation
import Hummingbird
import LocalCloud

// records/query, records/lookup, records/modify, records/changes.
extension CloudServer {
    /// The most records a query page returns (CloudKit's limit).
    static let maximumResultsLimit = 200
    /// The most operations or records one request may carry (CloudKit's limit).
    static let maximumItems = 400

    func addRecordRoutes(to router: Router<ServerRequestContext>) {
        onDatabase(router, .post, "records/query", cached: true, writing: { call in try await Self.query(call) })
        onDatabase(router, .post, "records/lookup", cached: true) { call in try await Self.lookup(call) }
        onDatabase(router, .post, "records/modify") { call in try await Self.modify(call) }
        onDatabase(router, .post, "records/changes") { call in try await Self.recordChanges(call) }
    }

    static func resultsLimit(_ json: JSONValue?, maximum: Int) throws -> Int {
        switch json {
        case nil, .null?: return maximum
        case let value?:
            guard let limit = value.int64Value, limit >= 1, limit <= Int64(maximum) else {
                throw ServerError(.badRequest, "resultsLimit must be an integer from 1 to \(maximum)")
            }
            return Int(limit)
        }
    }

    static func query(_ call: DatabaseCall) async throws -> [UInt8] {
        let limit = try resultsLimit(call.body["resultsLimit"], maximum: maximumResultsLimit)
        let desiredKeys = try call.desiredKeys()
        let page: (matchResults: [(Record.ID, Result<Record, any Error>)], queryCursor: Query.Cursor?)
        if let marker = call.body["continuationMarker"], marker != .null {
            guard let text = marker.stringValue, let cursor = QueryCursorCoding.decode(text) else {
                throw ServerError(.badRequest, "continuationMarker is not one this server issued")
            }
            page = try await call.database.records(continuingMatchFrom: cursor, desiredKeys: desiredKeys, resultsLimit: limit)
        } else {
            guard let queryJSON = call.body["query"] else { throw ServerError(.badRequest, "'query' is missing") }
            let query = try Query(webServices: queryJSON)
            page = try await call.database.records(matching: query, inZoneWith: try call.zoneID(), desiredKeys: desiredKeys, resultsLimit: limit)
        }
        // Written straight to bytes, as `JSONValue.bytes` would write `{continuationMarker, records}`
        // (sorted keys): a page is most of the uncached query's CPU when built as a tree first.
        var out: [UInt8] = []
        out.reserveCapacity(256 + page.matchResults.count * 384)
        out.append(contentsOf: "{".utf8)
        if let cursor = page.queryCursor {
            out.append(contentsOf: "\"continuationMarker\":".utf8)
            JSONValue.writeString(try QueryCursorCoding.encode(cursor), into: &out)
            out.append(contentsOf: ",".utf8)
        }
        out.append(contentsOf: "\"records\":[".utf8)
        for (index, (id, result)) in page.matchResults.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            switch result {
            case .success(let record) where !(record is Share): record.writeWebServicesJSON(into: &out, assets: call.assets)
            default: recordResult(id, result, call: call).write(into: &out)
            }
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }

    static func lookup(_ call: DatabaseCall) async throws -> JSONValue {
        let zone = try call.zoneID()
        let ids = try call.array("records", max: maximumItems).map { try Record.ID(webServices: $0, zoneID: zone) }
        let results = try await call.database.records(for: ids, desiredKeys: try call.desiredKeys())
        return .object(["records": .array(ids.map { id in
            recordResult(id, results[id] ?? .failure(CloudError(.unknownItem, "Record not found: \(id.recordName)")), call: call)
        })])
    }

    static func modify(_ call: DatabaseCall) async throws -> JSONValue {
        try call.requireUser("Saving or deleting records")
        let zone = try call.zoneID()
        let operations = try call.array("operations", max: maximumItems)
        var requested: [(type: String, operation: RecordOperation)] = []
        for (index, item) in operations.enumerated() {
            guard let type = item["operationType"]?.stringValue else {
                throw ServerError(.badRequest, "operations[\(index)].operationType is missing")
            }
            guard let recordJSON = item["record"] else { throw ServerError(.badRequest, "operations[\(index)].record is missing") }
            requested.append((type, try recordOperation(type, recordJSON, zone: zone, index: index, assets: call.assets)))
        }
        let atomic: Bool
        switch call.body["atomic"] {
        case nil, .null?: atomic = true
        case .bool(let value)?: atomic = value
        default: throw ServerError(.badRequest, "'atomic' must be true or false")
        }
        let results = try await call.database.apply(requested.map(\.operation), atomically: atomic)
        let desiredKeys = try call.desiredKeys().map(Set.init)
        return .object(["records": .array(zip(requested, results).map { request, result in
            switch result {
            case .saved(let record):
                return trimmed(recordResult(record.recordID, .success(record), call: call), to: desiredKeys)
            case .deleted(let id):
                return .object(["recordName": .string(id.recordName), "deleted": .bool(true), "zoneID": id.zoneID.webServicesValue])
            case .failed(let id, var error):
                // A create of a name that exists is EXISTS on the wire (the in-process API says serverRecordChanged).
                if request.type == "create", error.code == .serverRecordChanged { error.code = .constraintViolation }
                return errorResult(id, error, call: call)
            }
        })])
    }

    static func recordOperation(_ type: String, _ json: JSONValue, zone: RecordZone.ID, index: Int,
                                assets: AssetWireMapping) throws -> RecordOperation {
        switch type {
        case "delete", "forceDelete":
            let id = try Record.ID(webServices: json, zoneID: zone)
            if type == "forceDelete" { return .forceDelete(id) }
            return .delete(id, changeTag: json["recordChangeTag"]?.stringValue)
        case "create", "update", "forceUpdate", "replace", "forceReplace":
            let record = try Record.fromWebServices(json, zoneID: zone, assets: assets)
            if (type == "update" || type == "replace") && record.recordChangeTag == nil {
                throw ServerError(.badRequest, "operations[\(index)]: \(type) needs the record's recordChangeTag (or use force\(type.prefix(1).uppercased() + type.dropFirst()))")
            }
            switch type {
            case "create": return .create(record)
            case "update": return .update(record)
            case "forceUpdate": return .forceUpdate(record)
            case "replace": return .replace(record)
            default: return .forceReplace(record)
            }
        default:
            throw ServerError(.badRequest, "operations[\(index)]: unknown operationType '\(type.prefix(40))'")
        }
    }

    static func recordChanges(_ call: DatabaseCall) async throws -> JSONValue {
        let zone = try call.zoneID()
        let limit = try resultsLimit(call.body["resultsLimit"], maximum: maximumResultsLimit)
        let token = try SyncTokenCoding.decode(call.body["syncToken"])
        // Only when sent: `desiredKeys(nil)` would read the body's desiredKeys instead.
        let recordTypes = try call.body["desiredRecordTypes"].flatMap { try call.desiredKeys($0) }.map(Set.init)
        let page = try await call.database.recordZoneChanges(inZoneWith: zone, since: token, desiredKeys: try call.desiredKeys(), resultsLimit: limit)
        var records: [JSONValue] = []
        for (id, result) in page.modificationResultsByID.sorted(by: { $0.key.recordName < $1.key.recordName }) {
            if let recordTypes, case .success(let modification) = result, !recordTypes.contains(modification.record.recordType) { continue }
            records.append(recordResult(id, result.map(\.record), call: call))
        }
        for deletion in page.deletions where recordTypes?.contains(deletion.recordType) ?? true {
            records.append(.object(["recordName": .string(deletion.recordID.recordName), "recordType": .string(deletion.recordType),
                                    "deleted": .bool(true)]))
        }
        return .object([
            "records": .array(records), "syncToken": .string(SyncTokenCoding.encode(page.changeToken)),
            "moreComing": .bool(page.moreComing), "zoneID": zone.webServicesValue,
        ])
    }

    // MARK: Results

    static func recordResult(_ id: Record.ID, _ result: Result<Record, any Error>, call: DatabaseCall) -> JSONValue {
        switch result {
        case .success(let share as Share): shareJSON(share, call: call)
        case .success(let record): record.webServicesJSON(assets: call.assets)
        case .failure(let error): errorResult(id, error, call: call)
        }
    }

    /// A per-record failure: `{recordName, reason, serverErrorCode}`, plus the server's record on a conflict.
    static func errorResult(_ id: Record.ID, _ error: any Error, call: DatabaseCall) -> JSONValue {
        let serverError = ServerError(wrapping: error)
        var json: [String: JSONValue] = [
            "recordName": .string(id.recordName), "reason": .string(serverError.reason),
            "serverErrorCode": .string(serverError.code.rawValue),
        ]
        if let cloudError = error as? CloudError, let server = cloudError.serverRecord {
            json["serverRecord"] = server.webServicesJSON(assets: call.assets)
        }
        if let retryAfter = serverError.retryAfter { json["retryAfter"] = .number(retryAfter) }
        return .object(json)
    }

    /// A saved record's JSON with only `desiredKeys`' fields, when the request names them.
    static func trimmed(_ json: JSONValue, to keys: Set<String>?) -> JSONValue {
        guard let keys, case .object(var object) = json, let fields = object["fields"]?.objectValue else { return json }
        object["fields"] = .object(fields.filter { keys.contains($0.key) })
        return .object(object)
    }
}
