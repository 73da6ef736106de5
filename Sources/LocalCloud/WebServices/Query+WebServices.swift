import Foundation

// Interim: EQUALS filters and sortBy only, until the full comparator set lands.
extension Query {
    package convenience init(webServices json: JSONValue) throws {
        guard let type = json["recordType"]?.stringValue, !type.isEmpty else {
            throw CloudError(.invalidArguments, "query.recordType is missing")
        }
        var predicates: [Predicate] = []
        for filter in json["filterBy"]?.arrayValue ?? [] {
            guard filter["comparator"]?.stringValue == "EQUALS", let name = filter["fieldName"]?.stringValue,
                  let value = filter["fieldValue"] else {
                throw CloudError(.invalidArguments, "query.filterBy: unsupported filter")
            }
            let field = try FieldValue(webServices: value, field: name, assets: .none)
            predicates.append(Predicate(building: { try PredicateRules.comparison(PredicateRules.key(named: Self.systemKey(name)), .equal, field) }))
        }
        self.init(recordType: type, predicate: Predicate.and(predicates))
        sortDescriptors = try (json["sortBy"]?.arrayValue ?? []).map { sort in
            guard let name = sort["fieldName"]?.stringValue else { throw CloudError(.invalidArguments, "query.sortBy needs fieldName") }
            return SortDescriptor(key: Self.systemKey(name), ascending: sort["ascending"]?.boolValue ?? true)
        }
    }

    static func systemKey(_ name: String) -> String {
        switch name {
        case "___createTime": "creationDate"
        case "___modTime": "modificationDate"
        case "___recordID": "recordName"
        case "___createdBy": "creatorUserRecordID"
        case "___modifiedBy": "lastModifiedUserRecordID"
        default: name
        }
    }
}
