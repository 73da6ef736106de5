extension Schema {
    /// Checks that every index a query needs exists, with CloudKit's wording when one does not.
    ///
    /// - A query needs a queryable `recordName` ("Type is not marked indexable").
    /// - Each field a predicate filters on needs QUERYABLE (list matches included); each sort key
    ///   needs SORTABLE; `self CONTAINS` (all or any of the words) needs at least one SEARCHABLE field.
    ///
    /// - Throws: `CloudError(.unknownItem)` "Did not find record type: T" for an unknown type;
    ///   `CloudError(.invalidArguments)` "Field 'x' is not marked queryable" (or sortable, searchable)
    ///   or "Type is not marked indexable: T".
    package func checkIndexes(recordType: String, predicate: PredicateNode, sortKeys: [PredicateKey]) throws {
        guard let type = recordTypes[recordType] else {
            throw CloudError(.unknownItem, "Did not find record type: \(recordType)")
        }
        guard type.system(.recordID).isQueryable else {
            throw CloudError(.invalidArguments, "Type is not marked indexable: \(recordType)")
        }
        try Self.checkPredicate(predicate, in: type)
        for key in sortKeys {
            try Self.require(.sortable, key, in: type)
        }
    }

    private static func checkPredicate(_ node: PredicateNode, in type: RecordTypeSchema) throws {
        switch node {
        case .truePredicate, .falsePredicate:
            return
        case .and(let nodes):
            for node in nodes { try checkPredicate(node, in: type) }
        case .not(let inner):
            try checkPredicate(inner, in: type)
        case .comparison(let key, _, _), .between(let key, _, _), .beginsWith(let key, _), .in(let key, _),
             .listContains(let key, _), .distance(let key, _, _, _), .listContainsAny(let key, _), .listContainsAll(let key, _),
             .listMemberBeginsWith(let key, _):
            try require(.queryable, key, in: type)
        case .textSearch, .textSearchAny, .textSearchAsTyped:
            guard type.fields.contains(where: \.isSearchable) else {
                throw CloudError(.invalidArguments,
                                 "Field 'self' is not marked searchable: no field of type '\(type.name)' is SEARCHABLE")
            }
        }
    }

    private static func require(_ kind: IndexKind, _ key: PredicateKey, in type: RecordTypeSchema) throws {
        let field: FieldSchema
        let shownName: String
        if let system = SystemField(key) {
            field = type.system(system)
            shownName = system.consoleName
        } else if case .field(let name) = key {
            guard let known = type.field(named: name) else {
                throw CloudError(.invalidArguments, "Field '\(name)' is not marked \(kind): type '\(type.name)' has no such field")
            }
            field = known
            shownName = name
        } else {
            return
        }
        guard field.has(kind) else {
            throw CloudError(.invalidArguments, "Field '\(shownName)' is not marked \(kind)")
        }
    }
}
