import Foundation

/// The client half of the wire codec: what the remote store sends (queries, records to save)
/// and reads back (server records, notifications). The server half lives in `WebServices/`;
/// both use the same value codec (``FieldValue`` ⇄ `{value, type}`).
package enum RemoteWire {
    // MARK: Queries

    /// `{recordType, filterBy, sortBy}` for a validated query.
    /// - Throws: `invalidArguments` for a predicate CloudKit Web Services cannot express
    ///   (OR of comparisons, a distance greater than, FALSEPREDICATE).
    static func queryJSON(_ request: QueryRequest) throws -> JSONValue {
        var filters: [JSONValue] = []
        try appendFilters(request.predicate, negated: false, into: &filters)
        var query: [String: JSONValue] = ["recordType": .string(request.recordType), "filterBy": .array(filters)]
        query["sortBy"] = .array(request.sort.map { key in
            var sort: [String: JSONValue] = ["fieldName": .string(systemFieldName(key.key))]
            if let location = key.location {
                sort["relativeLocation"] = .object(["latitude": .number(location.latitude), "longitude": .number(location.longitude)])
            } else {
                sort["ascending"] = .bool(key.ascending)
            }
            return .object(sort)
        })
        return .object(query)
    }

    /// The wire's name for a sort or filter key: CloudKit's `___` names for system fields.
    static func systemFieldName(_ key: String) -> String {
        switch key {
        case "creationDate": "___createTime"
        case "modificationDate": "___modTime"
        case "recordID", "recordName": "___recordID"
        case "creatorUserRecordID": "___createdBy"
        case "lastModifiedUserRecordID": "___modifiedBy"
        default: key
        }
    }

    private static func fieldName(_ key: PredicateKey) -> String {
        systemFieldName(PredicateRules.name(of: key))
    }

    private static func isRecordKey(_ key: PredicateKey) -> Bool {
        switch key {
        case .recordName, .creatorUserRecordID, .lastModifiedUserRecordID: true
        default: false
        }
    }

    /// `{value, type}`; record-name keys take REFERENCEs.
    private static func value(_ value: FieldValue, for key: PredicateKey) -> JSONValue {
        if isRecordKey(key), case .string(let name) = value {
            return .object(["value": .object(["recordName": .string(name)]), "type": .string("REFERENCE")])
        }
        return value.webServicesJSON(assets: .none)
    }

    private static func list(_ values: [FieldValue], for key: PredicateKey) -> JSONValue {
        let items = values.map { Self.value($0, for: key) }
        let type = (items.first?["type"]?.stringValue ?? "STRING") + "_LIST"
        return .object(["value": .array(items.compactMap { $0["value"] }), "type": .string(type)])
    }

    private static func filter(_ comparator: String, _ key: PredicateKey?, _ value: JSONValue, extra: [String: JSONValue] = [:]) -> JSONValue {
        var json: [String: JSONValue] = ["comparator": .string(comparator), "fieldValue": value]
        if let key { json["fieldName"] = .string(fieldName(key)) }
        return .object(json.merging(extra) { a, _ in a })
    }

    private static func appendFilters(_ node: PredicateNode, negated: Bool, into filters: inout [JSONValue]) throws {
        let not = negated ? "NOT_" : ""
        switch node {
        case .truePredicate where !negated:
            return
        case .and(let parts) where !negated:
            for part in parts { try appendFilters(part, negated: false, into: &filters) }
        case .not(let inner) where !negated:
            try appendFilters(inner, negated: true, into: &filters)
        case .comparison(let key, let op, let operand):
            let names: [ComparisonOperator: String] = [
                .equal: "EQUALS", .notEqual: "NOT_EQUALS", .less: "LESS_THAN", .lessOrEqual: "LESS_THAN_OR_EQUALS",
                .greater: "GREATER_THAN", .greaterOrEqual: "GREATER_THAN_OR_EQUALS",
            ]
            let negatedNames: [ComparisonOperator: String] = [
                .equal: "NOT_EQUALS", .notEqual: "EQUALS", .less: "GREATER_THAN_OR_EQUALS", .lessOrEqual: "GREATER_THAN",
                .greater: "LESS_THAN_OR_EQUALS", .greaterOrEqual: "LESS_THAN",
            ]
            guard let name = (negated ? negatedNames : names)[op] else { throw unsupported(node) }
            filters.append(filter(name, key, value(operand, for: key)))
        case .between(let key, let lower, let upper) where !negated:
            filters.append(filter("GREATER_THAN_OR_EQUALS", key, value(lower, for: key)))
            filters.append(filter("LESS_THAN_OR_EQUALS", key, value(upper, for: key)))
        case .beginsWith(let key, let prefix):
            filters.append(filter(not + "BEGINS_WITH", key, .object(["value": .string(prefix), "type": .string("STRING")])))
        case .in(let key, let values):
            filters.append(filter(not + "IN", key, list(values, for: key)))
        case .listContains(let key, let member):
            filters.append(filter(not + "LIST_CONTAINS", key, value(member, for: key)))
        case .listContainsAny(let key, let values):
            filters.append(filter(not + "LIST_CONTAINS_ANY", key, list(values, for: key)))
        case .listContainsAll(let key, let values):
            filters.append(filter(not + "LIST_CONTAINS_ALL", key, list(values, for: key)))
        case .listMemberBeginsWith(let key, let prefix):
            filters.append(filter(not + "LIST_MEMBER_BEGINS_WITH", key, .object(["value": .string(prefix), "type": .string("STRING")])))
        case .textSearch(let text) where !negated:
            filters.append(filter("CONTAINS_ALL_TOKENS", nil, .object(["value": .string(text), "type": .string("STRING")])))
        case .textSearchAny(let words) where !negated:
            filters.append(filter("CONTAINS_ANY_TOKENS", nil, .object(["value": .string(words.joined(separator: " ")), "type": .string("STRING")])))
        case .textSearchAsTyped(let text) where !negated:
            filters.append(filter("LOCALCLOUD_CONTAINS_AS_TYPED", nil, .object(["value": .string(text), "type": .string("STRING")])))
        case .distance(let key, let location, let op, let kilometres) where !negated && (op == .less || op == .lessOrEqual):
            filters.append(filter("NEAR", key, FieldValue.location(location).webServicesJSON(assets: .none),
                                  extra: ["distance": .number(kilometres * 1000)]))
        default:
            throw unsupported(node)
        }
    }

    private static func unsupported(_ node: PredicateNode) -> CloudError {
        CloudError(.invalidArguments, "This predicate cannot be sent to a CloudKit Web Services server: \(node)")
    }

    // MARK: Records

    /// A record to save: the given fields (all of them, or only the changed ones), its change tag,
    /// and each asset as the receipt its upload returned. A removed field is `{"value": null}`.
    static func recordJSON(_ record: Record, allFields: Bool, receipts: [String: JSONValue]) -> JSONValue {
        let state = record.snapshot
        let keys = allFields ? Array(Set(state.fields.keys).union(state.changed)) : state.changed
        var fields: [String: JSONValue] = [:]
        for key in keys {
            if let receipt = receipts[key] {
                fields[key] = receipt
            } else if let value = state.fields[key] {
                fields[key] = value.webServicesJSON(assets: .none)
            } else {
                fields[key] = .object(["value": .null])
            }
        }
        var json: [String: JSONValue] = [
            "recordName": .string(record.recordID.recordName), "recordType": .string(record.recordType),
            "fields": .object(fields), "zoneID": record.recordID.zoneID.webServicesJSON,
        ]
        if let tag = state.recordChangeTag { json["recordChangeTag"] = .string(tag) }
        Share.addSharingWire(record, to: &json)
        return .object(json)
    }

    /// A record as the server has it: fields unchanged, system fields set, assets pointing at
    /// `assetFile(digest)` (the local cache) when it has the bytes.
    static func serverRecord(_ json: JSONValue, zoneID: RecordZone.ID, assetFile: (String) -> URL?) throws -> Record {
        guard let type = json["recordType"]?.stringValue, let name = json["recordName"]?.stringValue else {
            throw CloudError(.networkFailure, "The server sent a record without recordType or recordName")
        }
        let zone = json["zoneID"].flatMap { try? RecordZone.ID(webServices: $0) } ?? zoneID
        var state = Record.State()
        state.recordChangeTag = json["recordChangeTag"]?.stringValue
        if let created = json["created"] {
            state.creationDate = created["timestamp"]?.doubleValue.map { Date(timeIntervalSince1970: $0 / 1000) }
            state.creatorUserRecordID = created["userRecordName"]?.stringValue.map { Record.ID(recordName: $0) }
        }
        if let modified = json["modified"] {
            state.modificationDate = modified["timestamp"]?.doubleValue.map { Date(timeIntervalSince1970: $0 / 1000) }
            state.lastModifiedUserRecordID = modified["userRecordName"]?.stringValue.map { Record.ID(recordName: $0) }
        }
        let lenient = AssetWireMapping(downloadURL: { _ in nil }, exists: { _ in true })
        for (key, value) in json["fields"]?.objectValue ?? [:] {
            guard value["value"] != .null else { continue }
            var field = try FieldValue(webServices: value, field: key, assets: lenient)
            field = field.mappingAssets { asset in
                guard let digest = asset.contentDigest else { return asset }
                return Asset(fileURL: assetFile(digest), contentDigest: digest, size: asset.size)
            }
            state.fields[key] = field
        }
        return Share.fromServerJSON(json, type: type, recordID: Record.ID(recordName: name, zoneID: zone), state: state)
    }

    /// Every asset digest a server record's fields name, with its `downloadURL`.
    static func assetDownloads(_ json: JSONValue) -> [(digest: String, url: String)] {
        var found: [(String, String)] = []
        for (_, value) in json["fields"]?.objectValue ?? [:] {
            let type = value["type"]?.stringValue ?? ""
            guard type.hasPrefix("ASSET") else { continue }
            let items = value["value"]?.arrayValue ?? [value["value"] ?? .null]
            for item in items {
                if let digest = (item["fileChecksum"] ?? item["receipt"])?.stringValue, let url = item["downloadURL"]?.stringValue {
                    found.append((digest, url))
                }
            }
        }
        return found
    }

    // MARK: Notifications

    /// A notification from an event's `ck` payload.
    /// - Parameter received: the notification's date: a push payload carries none, so it is when it arrived.
    static func notification(_ payload: JSONValue, sequence: Int64, received: Date) -> Notification? {
        guard let ck = payload["ck"] else { return nil }
        let body: JSONValue
        let type: Notification.NotificationType
        if let query = ck["qry"] {
            body = query
            type = .query
        } else if let zone = ck["fet"] {
            body = zone
            type = .recordZone
        } else if let database = ck["met"] {
            body = database
            type = .database
        } else {
            return nil
        }
        guard let subscriptionID = body["sid"]?.stringValue else { return nil }
        let scope = body["dbs"]?.int64Value.flatMap { Database.Scope(rawValue: Int($0)) } ?? .public
        var zone: RecordZone.ID?
        if let zoneName = body["zid"]?.stringValue {
            let owner = body["zoid"]?.stringValue ?? "_defaultOwner"
            zone = RecordZone.ID(zoneName: zoneName, ownerName: owner == "_defaultOwner" ? RecordZone.ID.currentUserName : owner)
        }
        let recordID = body["rid"]?.stringValue.map { Record.ID(recordName: $0, zoneID: zone ?? .default) }
        var info: Subscription.NotificationInfo?
        if let aps = payload["aps"] {
            var notificationInfo = Subscription.NotificationInfo()
            notificationInfo.title = aps["alert"]?["title"]?.stringValue
            notificationInfo.alertBody = aps["alert"]?["body"]?.stringValue
            notificationInfo.shouldSendContentAvailable = aps["content-available"] != nil
            notificationInfo.category = aps["category"]?.stringValue
            info = notificationInfo
        }
        return Notification(
            notificationType: type, notificationID: ck["nid"]?.stringValue ?? UUID().uuidString,
            subscriptionID: subscriptionID, containerIdentifier: ck["cid"]?.stringValue ?? "",
            databaseScope: scope, recordID: recordID, recordType: body["rt"]?.stringValue,
            queryNotificationReason: body["fo"]?.int64Value.flatMap { Notification.Reason(rawValue: Int($0)) } ?? .recordUpdated,
            recordZoneID: zone, modifiedBy: nil, changeDate: received, notificationInfo: info, changeSequence: sequence)
    }
}

extension FieldValue {
    /// The same value with every asset (in a list too) replaced by `transform`'s.
    func mappingAssets(_ transform: (Asset) -> Asset) -> FieldValue {
        switch self {
        case .asset(let asset): .asset(transform(asset))
        case .list(let items): .list(items.map { $0.mappingAssets(transform) })
        default: self
        }
    }
}
