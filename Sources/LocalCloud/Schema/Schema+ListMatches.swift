extension Schema {
    /// Refuses list matches on fields the schema says are not lists, as CloudKit does:
    /// `CONTAINS`, `ANY … IN`, `ALL … IN` and `ANY … BEGINSWITH` are for list fields, and
    /// `self CONTAINS` searches text.
    ///
    /// ```swift
    /// // name is a STRING field:
    /// let query = Query(recordType: "Restaurant", predicate: Predicate(format: "name CONTAINS 'Port'"))
    /// try await db.records(matching: query)
    /// // CloudError(.invalidArguments): "Field 'name' is a STRING, not a list: CONTAINS, ANY and ALL match list fields; …"
    /// ```
    ///
    /// Fields the schema does not know (and unknown record types) are left to the query, which finds nothing.
    /// - Throws: `CloudError(.invalidArguments)` naming the field.
    package func checkListMatches(recordType: String, predicate: PredicateNode) throws {
        guard let type = recordTypes[recordType] else { return }
        try Self.checkListMatches(predicate, in: type)
    }

    private static func checkListMatches(_ node: PredicateNode, in type: RecordTypeSchema) throws {
        switch node {
        case .and(let nodes):
            for node in nodes { try checkListMatches(node, in: type) }
        case .not(let inner):
            try checkListMatches(inner, in: type)
        case .listContains(let key, _), .listContainsAny(let key, _), .listContainsAll(let key, _),
             .listMemberBeginsWith(let key, _):
            guard case .field(let name) = key, let field = type.field(named: name), !field.type.isList else { return }
            throw CloudError(.invalidArguments,
                             "Field '\(name)' is a \(field.type), not a list: CONTAINS, ANY and ALL match list fields; "
                                 + "use 'self CONTAINS' to search text")
        default:
            return
        }
    }
}
