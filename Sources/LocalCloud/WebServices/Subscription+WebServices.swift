import Foundation

// The subscription dictionary of CloudKit Web Services, both ways: the server reads and writes it,
// and the remote store will send it.
extension Subscription {
    /// A subscription from its web-services dictionary.
    ///
    /// ```swift
    /// let subscription = try Subscription.webServices(JSONValue.parse(Array(#"""
    ///     {"subscriptionID": "thai", "subscriptionType": "query", "firesOn": ["create", "update"],
    ///      "query": {"recordType": "Restaurant", "filterBy": [{"comparator": "EQUALS", "fieldName": "type",
    ///                                                          "fieldValue": {"value": "Thai"}}]}}
    ///     """#.utf8)))
    /// ```
    ///
    /// `subscriptionType` is `query` or `zone` (and `database`, as CloudKit JS names it); when
    /// absent, `zoneWide: true` means a zone subscription and a `query` a query one. A query
    /// subscription without `zoneID` watches every zone. A missing `subscriptionID` gets a new UUID.
    ///
    /// - Throws: `invalidArguments` naming the key that is missing or of the wrong type.
    package static func webServices(_ json: JSONValue) throws -> Subscription {
        guard json.objectValue != nil else { throw CloudError(.invalidArguments, "subscription must be a dictionary") }
        let id: String
        switch json["subscriptionID"] {
        case nil, .null?: id = UUID().uuidString
        case .string(let value)?: id = value
        default: throw CloudError(.invalidArguments, "subscription.subscriptionID must be a string")
        }
        let zoneWide = try flag(json["zoneWide"], "zoneWide")
        let type: String
        switch json["subscriptionType"] {
        case .string(let value)?: type = value.lowercased()
        case nil, .null?: type = zoneWide ? "zone" : "query"
        default: throw CloudError(.invalidArguments, "subscription.subscriptionType must be a string")
        }
        let subscription: Subscription
        switch type {
        case "query":
            guard let queryJSON = json["query"], queryJSON != .null else {
                throw CloudError(.invalidArguments, "subscription.query is missing: a query subscription needs one")
            }
            let query = try Query(webServices: queryJSON)
            var options: QuerySubscription.Options = []
            switch json["firesOn"] {
            case nil, .null?:
                options = [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion]
            case .array(let items)?:
                for item in items {
                    switch item.stringValue {
                    case "create": options.insert(.firesOnRecordCreation)
                    case "update": options.insert(.firesOnRecordUpdate)
                    case "delete": options.insert(.firesOnRecordDeletion)
                    default: throw CloudError(.invalidArguments, "subscription.firesOn: use create, update and delete")
                    }
                }
            default: throw CloudError(.invalidArguments, "subscription.firesOn must be an array of create, update and delete")
            }
            if try flag(json["firesOnce"], "firesOnce") { options.insert(.firesOnce) }
            let querySubscription = QuerySubscription(recordType: query.recordType, predicate: query.predicate, subscriptionID: id, options: options)
            if let zone = json["zoneID"], zone != .null { querySubscription.zoneID = try RecordZone.ID(webServices: zone) }
            subscription = querySubscription
        case "zone", "record_zone", "recordzone":
            guard let zone = json["zoneID"], zone != .null else {
                throw CloudError(.invalidArguments, "subscription.zoneID is missing: a zone subscription needs one")
            }
            subscription = RecordZoneSubscription(zoneID: try RecordZone.ID(webServices: zone), subscriptionID: id)
        case "database":
            subscription = DatabaseSubscription(subscriptionID: id)
        default:
            throw CloudError(.invalidArguments, "subscription.subscriptionType must be query or zone")
        }
        if let info = json["notificationInfo"], info != .null {
            subscription.notificationInfo = try NotificationInfo(webServices: info)
        }
        return subscription
    }

    /// The subscription's web-services dictionary.
    package var webServicesJSON: JSONValue {
        var json: [String: JSONValue] = ["subscriptionID": .string(subscriptionID)]
        switch self {
        case let query as QuerySubscription:
            json["subscriptionType"] = .string("query")
            json["query"] = Self.queryJSON(recordType: query.recordType, predicate: query.predicate)
            let options = query.querySubscriptionOptions
            var firesOn: [JSONValue] = []
            if options.contains(.firesOnRecordCreation) { firesOn.append(.string("create")) }
            if options.contains(.firesOnRecordUpdate) { firesOn.append(.string("update")) }
            if options.contains(.firesOnRecordDeletion) { firesOn.append(.string("delete")) }
            json["firesOn"] = .array(firesOn)
            json["firesOnce"] = .bool(options.contains(.firesOnce))
            json["zoneWide"] = .bool(false)
            if let zone = query.zoneID { json["zoneID"] = zone.webServicesJSON }
        case let zone as RecordZoneSubscription:
            json["subscriptionType"] = .string("zone")
            json["zoneWide"] = .bool(true)
            json["zoneID"] = zone.zoneID.webServicesJSON
        default:
            json["subscriptionType"] = .string("database")
        }
        if let info = notificationInfo { json["notificationInfo"] = info.webServicesJSON }
        return .object(json)
    }

    private static func flag(_ json: JSONValue?, _ key: String) throws -> Bool {
        switch json {
        case nil, .null?: return false
        case .bool(let value)?: return value
        default: throw CloudError(.invalidArguments, "subscription.\(key) must be true or false")
        }
    }

    /// `{recordType, filterBy}`: the predicate's filters, as far as they have a web-services form.
    static func queryJSON(recordType: String, predicate: Predicate) -> JSONValue {
        var json: [String: JSONValue] = ["recordType": .string(recordType)]
        if let node = try? predicate.validatedNode() {
            let filters = Self.filters(node)
            if !filters.isEmpty { json["filterBy"] = .array(filters) }
        }
        return .object(json)
    }

    private static func filters(_ node: PredicateNode, negated: Bool = false) -> [JSONValue] {
        func filter(_ comparator: String, _ key: PredicateKey, _ value: JSONValue) -> JSONValue {
            .object(["comparator": .string(negated ? "NOT_" + comparator : comparator), "fieldName": .string(fieldName(key)), "fieldValue": value])
        }
        switch node {
        case .and(let nodes) where !negated:
            return nodes.flatMap { filters($0) }
        case .not(let inner) where !negated:
            return filters(inner, negated: true)
        case .comparison(let key, let op, let value):
            let name: String = switch (op, negated) {
            case (.equal, false), (.notEqual, true): "EQUALS"
            case (.notEqual, false), (.equal, true): "NOT_EQUALS"
            case (.less, false), (.greaterOrEqual, true): "LESS_THAN"
            case (.lessOrEqual, false), (.greater, true): "LESS_THAN_OR_EQUALS"
            case (.greater, false), (.lessOrEqual, true): "GREATER_THAN"
            case (.greaterOrEqual, false), (.less, true): "GREATER_THAN_OR_EQUALS"
            }
            return [.object(["comparator": .string(name), "fieldName": .string(fieldName(key)), "fieldValue": value.webServicesJSON(assets: .none)])]
        case .between(let key, let lower, let upper) where !negated:
            return [
                .object(["comparator": .string("GREATER_THAN_OR_EQUALS"), "fieldName": .string(fieldName(key)), "fieldValue": lower.webServicesJSON(assets: .none)]),
                .object(["comparator": .string("LESS_THAN_OR_EQUALS"), "fieldName": .string(fieldName(key)), "fieldValue": upper.webServicesJSON(assets: .none)]),
            ]
        case .beginsWith(let key, let prefix):
            return [filter("BEGINS_WITH", key, .object(["value": .string(prefix), "type": .string("STRING")]))]
        case .in(let key, let values):
            let items = values.map { $0.webServicesJSON(assets: .none) }
            var list: [String: JSONValue] = ["value": .array(items.map { $0["value"] ?? .null })]
            if let type = items.first?["type"]?.stringValue { list["type"] = .string(type + "_LIST") }
            return [filter("IN", key, .object(list))]
        case .listContains(let key, let value):
            return [filter("LIST_CONTAINS", key, value.webServicesJSON(assets: .none))]
        case .distance(let key, let location, _, let kilometres) where !negated:
            return [.object([
                "comparator": .string("NEAR"), "fieldName": .string(fieldName(key)), "distance": .number(kilometres * 1000),
                "fieldValue": .object(["value": .object(["latitude": .number(location.latitude), "longitude": .number(location.longitude)]),
                                       "type": .string("LOCATION")]),
            ])]
        default:
            // TRUEPREDICATE, full-text matches and forms with no filterBy equivalent.
            return []
        }
    }

    private static func fieldName(_ key: PredicateKey) -> String {
        switch key {
        case .field(let name): name
        case .creationDate: "___createTime"
        case .modificationDate: "___modTime"
        case .recordName: "___recordID"
        case .creatorUserRecordID: "___createdBy"
        case .lastModifiedUserRecordID: "___modifiedBy"
        }
    }
}

extension Subscription.NotificationInfo {
    /// `{alertBody, title, category, shouldBadge, shouldSendContentAvailable, desiredKeys}`; other keys are ignored.
    package init(webServices json: JSONValue) throws {
        guard json.objectValue != nil else { throw CloudError(.invalidArguments, "subscription.notificationInfo must be a dictionary") }
        func text(_ key: String) throws -> String? {
            switch json[key] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            default: throw CloudError(.invalidArguments, "subscription.notificationInfo.\(key) must be a string")
            }
        }
        func flag(_ key: String) throws -> Bool {
            switch json[key] {
            case nil, .null?: return false
            case .bool(let value)?: return value
            default: throw CloudError(.invalidArguments, "subscription.notificationInfo.\(key) must be true or false")
            }
        }
        var desiredKeys: [String]?
        if let keys = json["desiredKeys"], keys != .null {
            guard let items = keys.arrayValue, items.allSatisfy({ $0.stringValue != nil }) else {
                throw CloudError(.invalidArguments, "subscription.notificationInfo.desiredKeys must be an array of strings")
            }
            desiredKeys = items.compactMap(\.stringValue)
        }
        self.init(title: try text("title"), alertBody: try text("alertBody"), category: try text("category"),
                  shouldBadge: try flag("shouldBadge"), shouldSendContentAvailable: try flag("shouldSendContentAvailable"),
                  desiredKeys: desiredKeys)
    }

    package var webServicesJSON: JSONValue {
        var json: [String: JSONValue] = ["shouldBadge": .bool(shouldBadge), "shouldSendContentAvailable": .bool(shouldSendContentAvailable)]
        if let title { json["title"] = .string(title) }
        if let alertBody { json["alertBody"] = .string(alertBody) }
        if let category { json["category"] = .string(category) }
        if let desiredKeys { json["desiredKeys"] = .array(desiredKeys.map(JSONValue.string)) }
        return .object(json)
    }
}
