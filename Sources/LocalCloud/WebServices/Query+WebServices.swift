import Foundation

extension Query {
    /// A query from the Query dictionary of CloudKit Web Services' `records/query` request.
    ///
    /// ```swift
    /// let json = try JSONValue.parse(Array(#"""
    ///     {"recordType": "Restaurant",
    ///      "filterBy": [{"comparator": "LIST_CONTAINS_ANY", "fieldName": "tags",
    ///                    "fieldValue": {"value": ["vegan", "halal"], "type": "STRING_LIST"}}],
    ///      "sortBy": [{"fieldName": "___createTime", "ascending": false}]}
    ///     """#.utf8))
    /// let query = try Query(webServices: json)   // ANY tags IN {"vegan", "halal"}, newest first
    /// ```
    /// - `filterBy` entries `{comparator, fieldName, fieldValue: {value, type?}, distance?}` are ANDed.
    ///   System fields are `___createTime`, `___modTime`, `___recordID`, `___createdBy` and
    ///   `___modifiedBy`; the record ones take a record name or a REFERENCE. NEAR takes a LOCATION
    ///   and `distance`, the radius in metres. The token comparators search every SEARCHABLE
    ///   field of the record whatever `fieldName` says (it may be left out).
    /// - `sortBy` entries are `{fieldName, ascending}` (`ascending` defaults to true) or
    ///   `{fieldName, relativeLocation: {latitude, longitude}}`, nearest first.
    ///
    /// - Throws: `CloudError(.invalidArguments)` whose message names the key that is wrong
    ///   (`query.filterBy[1].fieldValue.value`) and why. Never traps, whatever the JSON.
    package convenience init(webServices json: JSONValue) throws {
        let path = "query"
        guard case .object(let dictionary) = json else {
            throw QueryValueDecoder.error(path, "must be a dictionary with recordType, filterBy and sortBy, not \(QueryValueDecoder.describe(json))")
        }
        guard let recordTypeJSON = dictionary["recordType"] else { throw QueryValueDecoder.error(path + ".recordType", "is missing") }
        guard case .string(let recordType) = recordTypeJSON else {
            throw QueryValueDecoder.error(path + ".recordType", "must be a string, not \(QueryValueDecoder.describe(recordTypeJSON))")
        }
        guard FieldName.isValid(recordType) else {
            throw QueryValueDecoder.error(path + ".recordType", "'\(PredicateRules.clip(recordType, limit: 60))' is not a record type name: use letters, digits and underscores, starting with a letter")
        }
        let filters = try Self.entries(dictionary["filterBy"], at: path + ".filterBy", limit: Self.maximumFilters)
        let node = PredicateRules.and(try filters.enumerated().map { index, filter in
            try Self.filterNode(filter, at: "\(path).filterBy[\(index)]")
        })
        let sorts = try Self.entries(dictionary["sortBy"], at: path + ".sortBy", limit: Self.maximumSortDescriptors)
        let descriptors = try sorts.enumerated().map { index, sort in
            try Self.sortDescriptor(sort, at: "\(path).sortBy[\(index)]")
        }
        self.init(recordType: recordType, predicate: Predicate(building: { node }))
        if !descriptors.isEmpty { sortDescriptors = descriptors }
    }

    /// More filters than any real query has; each one is a SQL term.
    static let maximumFilters = 100
    static let maximumSortDescriptors = 10
    /// Half the Earth's circumference: every point is nearer than this.
    static let maximumNearMetres = 20_037_509.0

    /// The dictionaries of an optional array (`filterBy`, `sortBy`).
    private static func entries(_ json: JSONValue?, at path: String, limit: Int) throws -> [[String: JSONValue]] {
        guard let json, json != .null else { return [] }
        guard case .array(let items) = json else {
            throw QueryValueDecoder.error(path, "must be an array, not \(QueryValueDecoder.describe(json))")
        }
        guard items.count <= limit else { throw QueryValueDecoder.error(path, "has \(items.count) entries; at most \(limit) are allowed") }
        return try items.enumerated().map { index, item in
            guard case .object(let dictionary) = item else {
                throw QueryValueDecoder.error("\(path)[\(index)]", "must be a dictionary, not \(QueryValueDecoder.describe(item))")
            }
            return dictionary
        }
    }

    // MARK: Filters

    private static func filterNode(_ filter: [String: JSONValue], at path: String) throws -> PredicateNode {
        guard let comparatorJSON = filter["comparator"] else { throw QueryValueDecoder.error(path + ".comparator", "is missing") }
        guard case .string(let name) = comparatorJSON, let comparator = QueryComparator(rawValue: name) else {
            throw QueryValueDecoder.error(path + ".comparator", "\(QueryValueDecoder.describe(comparatorJSON)) is not a comparator: use one of \(QueryComparator.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let key: PredicateKey
        if comparator.isTokenSearch {
            // The token index covers the record's searchable fields as one text.
            if let fieldName = filter["fieldName"], fieldName.stringValue == nil, fieldName != .null {
                throw QueryValueDecoder.error(path + ".fieldName", "must be a string, not \(QueryValueDecoder.describe(fieldName))")
            }
            key = .field("allTokens")
        } else {
            key = try fieldKey(filter["fieldName"], at: path + ".fieldName")
        }
        let valuePath = path + ".fieldValue"
        let value = try QueryValueDecoder.decode(filter["fieldValue"], at: valuePath, defaultType: defaultType(for: key))
        var kilometres: Double?
        switch comparator.operand {
        case .scalar:
            if case .list = value {
                throw QueryValueDecoder.error(valuePath + ".value", "must be a single value for \(name), not a list")
            }
        case .list:
            guard case .list = value else {
                throw QueryValueDecoder.error(valuePath + ".value", "must be a list (an array, or a _LIST type) for \(name)")
            }
        case .text:
            guard case .string = value else {
                throw QueryValueDecoder.error(valuePath + ".value", "must be a string for \(name)")
            }
        case .location:
            guard case .location = value else {
                throw QueryValueDecoder.error(valuePath + ".value", "must be a LOCATION {latitude, longitude} for NEAR")
            }
            guard let distance = filter["distance"] else {
                throw QueryValueDecoder.error(path + ".distance", "is missing: NEAR needs the radius in metres")
            }
            guard let metres = distance.doubleValue, metres.isFinite, metres >= 0, metres <= maximumNearMetres else {
                throw QueryValueDecoder.error(path + ".distance", "must be a radius in metres from 0 to \(Int(maximumNearMetres)), not \(QueryValueDecoder.describe(distance))")
            }
            kilometres = metres / 1000
        }
        do {
            return try comparator.node(key: key, value: value, kilometres: kilometres)
        } catch let error as CloudError {
            throw QueryValueDecoder.error(path, "(\(name) on \(PredicateRules.clip(PredicateRules.name(of: key), limit: 60))): \(error.message)")
        }
    }

    /// A filter's field: a user field, or a system field by its `___` name.
    private static func fieldKey(_ json: JSONValue?, at path: String) throws -> PredicateKey {
        guard let json else { throw QueryValueDecoder.error(path, "is missing") }
        guard case .string(let name) = json else {
            throw QueryValueDecoder.error(path, "must be a string, not \(QueryValueDecoder.describe(json))")
        }
        switch name {
        case "___createTime": return .creationDate
        case "___modTime": return .modificationDate
        case "___recordID": return .recordName
        case "___createdBy": return .creatorUserRecordID
        case "___modifiedBy": return .lastModifiedUserRecordID
        default: break
        }
        guard FieldName.isValid(name) else {
            throw QueryValueDecoder.error(path, "'\(PredicateRules.clip(name, limit: 60))' is not a queryable field: use a field name or ___createTime, ___modTime, ___recordID, ___createdBy or ___modifiedBy")
        }
        return try PredicateRules.key(named: name)
    }

    /// The type a system field's value has when the filter leaves `type` out.
    private static func defaultType(for key: PredicateKey) -> String? {
        switch key {
        case .creationDate, .modificationDate: "TIMESTAMP"
        case .recordName, .creatorUserRecordID, .lastModifiedUserRecordID: "REFERENCE"
        case .field: nil
        }
    }

    // MARK: Sorting

    private static func sortDescriptor(_ sort: [String: JSONValue], at path: String) throws -> SortDescriptor {
        guard let fieldJSON = sort["fieldName"] else { throw QueryValueDecoder.error(path + ".fieldName", "is missing") }
        guard case .string(let fieldName) = fieldJSON else {
            throw QueryValueDecoder.error(path + ".fieldName", "must be a string, not \(QueryValueDecoder.describe(fieldJSON))")
        }
        let key: String
        switch fieldName {
        case "___createTime": key = "creationDate"
        case "___modTime": key = "modificationDate"
        case "___recordID": key = "recordName"
        case "___createdBy": key = "creatorUserRecordID"
        case "___modifiedBy": key = "lastModifiedUserRecordID"
        default:
            guard FieldName.isValid(fieldName) else {
                throw QueryValueDecoder.error(path + ".fieldName", "'\(PredicateRules.clip(fieldName, limit: 60))' is not a sortable field name")
            }
            key = fieldName
        }
        var ascending = true
        if let ascendingJSON = sort["ascending"], ascendingJSON != .null {
            guard case .bool(let flag) = ascendingJSON else {
                throw QueryValueDecoder.error(path + ".ascending", "must be true or false, not \(QueryValueDecoder.describe(ascendingJSON))")
            }
            ascending = flag
        }
        if let relative = sort["relativeLocation"], relative != .null {
            guard case .field = try PredicateRules.key(named: key) else {
                throw QueryValueDecoder.error(path + ".relativeLocation", "needs a location field, not \(fieldName)")
            }
            let location = try QueryValueDecoder.location(relative, at: path + ".relativeLocation")
            guard ascending else {
                throw QueryValueDecoder.error(path + ".ascending", "must be true with relativeLocation: a location sort is nearest first")
            }
            return LocationSortDescriptor(key: key, relativeLocation: location)
        }
        return SortDescriptor(key: key, ascending: ascending)
    }
}
