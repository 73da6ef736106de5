extension Schema {
    /// This schema with `other`'s types, fields, indexes, grants and roles laid over it.
    ///
    /// - Throws: `CloudError(.invalidArguments)` when a field exists in both with different types.
    package func merging(_ other: Schema) throws -> Schema {
        var result = self
        for incoming in other.sortedRecordTypes {
            guard var type = result.recordTypes[incoming.name] else {
                result.recordTypes[incoming.name] = incoming
                continue
            }
            for field in incoming.fields {
                if let index = type.fields.firstIndex(where: { $0.name == field.name }) {
                    guard type.fields[index].type == field.type else {
                        throw CloudError(.invalidArguments,
                                         "Field '\(field.name)' of type '\(incoming.name)' is \(type.fields[index].type), the imported schema says \(field.type)")
                    }
                    type.fields[index] = field
                } else {
                    type.fields.append(field)
                }
            }
            type.grants = incoming.grants
            result.recordTypes[incoming.name] = type
        }
        result.roles.formUnion(other.roles)
        if result != self { result.version = version + 1 }
        return result
    }
}
