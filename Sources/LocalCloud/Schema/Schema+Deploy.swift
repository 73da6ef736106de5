extension Schema {
    /// The production schema after deploying this (development) schema to `production`:
    /// types, fields, indexes, grants and roles are copied; data and role members are not.
    ///
    /// As in CloudKit, deploying may add types, fields, indexes and roles, and may drop
    /// indexes, but it never removes a type or field or changes a field's type, since
    /// production records could depend on them.
    ///
    /// - Throws: `CloudError(.invalidArguments)` listing every destructive change.
    package func deploying(to production: Schema) throws -> Schema {
        var problems: [String] = []
        for old in production.sortedRecordTypes {
            guard let new = recordTypes[old.name] else {
                problems.append("record type '\(old.name)' would be removed")
                continue
            }
            for field in old.userFields {
                guard let replacement = new.field(named: field.name) else {
                    problems.append("field '\(old.name).\(field.name)' would be removed")
                    continue
                }
                if replacement.type != field.type {
                    problems.append("field '\(old.name).\(field.name)' would change type from \(field.type) to \(replacement.type)")
                }
            }
        }
        guard problems.isEmpty else {
            throw CloudError(.invalidArguments,
                             "Cannot deploy to production: destructive change (\(problems.joined(separator: "; ")))")
        }
        var next = production
        next.recordTypes = recordTypes
        next.roles = roles
        for user in next.members.keys {
            next.members[user]?.formIntersection(roles)
        }
        next.members = next.members.filter { !$0.value.isEmpty }
        if !next.sameDefinition(as: production) {
            next.version = production.version + 1
        }
        return next
    }
}
