import Foundation

// Adding types and fields by hand, as the CloudKit Console's Schema page does (the web console's
// "add a type" and "add a field"); the rules are the ones saves use when they create them just in time.
extension Schema {
    /// Adds an empty record type with CloudKit's default grants.
    ///
    /// - Throws: `CloudError(.invalidArguments)` for an invalid name, `.constraintViolation` when it exists.
    package mutating func addRecordType(_ name: String) throws {
        try Self.validateName(name, what: "Record type")
        guard recordTypes[name] == nil else {
            throw CloudError(.constraintViolation, "Record type '\(name)' exists already")
        }
        recordTypes[name] = RecordTypeSchema(name: name, grants: RecordTypeSchema.defaultGrants)
        version += 1
    }

    /// Adds a field, without indexes, to a record type.
    ///
    /// - Throws: `CloudError(.unknownItem)` for an unknown type, `.invalidArguments` for an invalid
    ///   or system name, `.constraintViolation` when the type has the field already.
    package mutating func addField(_ name: String, type fieldType: FieldType, to typeName: String) throws {
        guard var type = recordTypes[typeName] else {
            throw CloudError(.unknownItem, "Unknown record type '\(typeName)'")
        }
        try Self.validateName(name, what: "Field name")
        guard SystemField(anyName: name) == nil else {
            throw CloudError(.invalidArguments, "'\(name)' is a system field")
        }
        if let existing = type.field(named: name) {
            throw CloudError(.constraintViolation, "Type '\(typeName)' has a field '\(name)' already (\(existing.type))")
        }
        type.fields.append(FieldSchema(name: name, type: fieldType))
        recordTypes[typeName] = type
        version += 1
    }
}
