import Foundation

extension Schema {
    /// The schema after a save of `fields` to a record of `recordType` in development:
    /// unknown types and fields are created just in time, as CloudKit does.
    ///
    /// A new type gets CloudKit's default grants (``RecordTypeSchema/defaultGrants``) and
    /// unindexed system fields; new fields get no indexes. `version` goes up only on a change.
    ///
    /// - Throws: `CloudError(.invalidArguments)` naming the field and both types when a value
    ///   does not match the field's existing type, or for an invalid name.
    func applying(recordType: String, fields: [String: FieldValue]) throws -> Schema {
        try evolved(recordType: recordType, fields: fields) ?? self
    }

    /// ``applying(recordType:fields:)``, or `nil` when the save changes nothing (the common case, kept cheap).
    private func evolved(recordType: String, fields: [String: FieldValue]) throws -> Schema? {
        if let type = recordTypes[recordType] {
            // Fast path: every field already exists with the value's type.
            var known = true
            for (name, value) in fields {
                guard let field = type.field(named: name) else { known = false; break }
                try Self.check(try value.schemaType(field: name), matches: field, recordType: recordType)
            }
            if known { return nil }
        }
        try Self.validateName(recordType, what: "Record type")
        var type = recordTypes[recordType] ?? RecordTypeSchema(name: recordType, grants: RecordTypeSchema.defaultGrants)
        var changed = recordTypes[recordType] == nil
        for name in fields.keys.sorted() {
            guard let value = fields[name] else { continue }
            try Self.validateName(name, what: "Field name")
            let valueType = try value.schemaType(field: name)
            if let existing = type.field(named: name) {
                try Self.check(valueType, matches: existing, recordType: recordType)
            } else if let valueType {
                type.fields.append(FieldSchema(name: name, type: valueType))
                changed = true
            }
        }
        guard changed else { return nil }
        var next = self
        next.recordTypes[recordType] = type
        next.version += 1
        return next
    }

    /// Checks a save against a production schema, which never changes on save.
    ///
    /// - Throws: `CloudError(.invalidArguments)`: "Cannot create new type X in production schema",
    ///   "Cannot create new field 'f' in production schema", or a type mismatch.
    func validate(recordType: String, fields: [String: FieldValue]) throws {
        guard let type = recordTypes[recordType] else {
            throw CloudError(.invalidArguments, "Cannot create new type \(recordType) in production schema")
        }
        for name in fields.keys.sorted() {
            guard let value = fields[name] else { continue }
            let valueType = try value.schemaType(field: name)
            guard let existing = type.field(named: name), !existing.isSystem else {
                throw CloudError(.invalidArguments, "Cannot create new field '\(name)' in production schema (type \(recordType))")
            }
            try Self.check(valueType, matches: existing, recordType: recordType)
        }
    }

    /// Development accommodates the save; production only validates it.
    ///
    /// - Returns: the changed schema, or `nil` when the save changes nothing.
    package func checkingSave(recordType: String, fields: [String: FieldValue], justInTime: Bool) throws -> Schema? {
        if justInTime {
            return try evolved(recordType: recordType, fields: fields)
        }
        try validate(recordType: recordType, fields: fields)
        return nil
    }

    private static func check(_ valueType: FieldType?, matches field: FieldSchema, recordType: String) throws {
        if field.isSystem {
            throw CloudError(.invalidArguments, "Field '\(field.name)' is a system field and cannot be set")
        }
        guard let valueType else {
            // An empty list fits any list field.
            guard field.type.isList else {
                throw CloudError(.invalidArguments,
                                 "Invalid value for field '\(field.name)' of type '\(recordType)': got an empty LIST, the schema defines it as \(field.type)")
            }
            return
        }
        guard valueType == field.type else {
            throw CloudError(.invalidArguments,
                             "Invalid value type \(valueType) for field '\(field.name)' of type '\(recordType)': the schema defines it as \(field.type)")
        }
    }

    static func validateName(_ name: String, what: String) throws {
        guard let first = name.unicodeScalars.first, name.utf8.count <= 255,
              ("a"..."z").contains(first) || ("A"..."Z").contains(first),
              name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" })
        else {
            throw CloudError(.invalidArguments, "\(what) '\(name)' is invalid: use letters, digits and underscores, starting with a letter")
        }
    }

    // MARK: Console edits

    /// Adds or removes one index, as the CloudKit Console's Indexes page does.
    ///
    /// `field` may be a user field or a system field by any of its names (`recordName`,
    /// `createdTimestamp`, `___createTime`, …).
    ///
    /// - Throws: `CloudError(.unknownItem)` for an unknown type or field,
    ///   `CloudError(.invalidArguments)` when the field's type cannot have that index.
    package mutating func setIndex(_ kind: IndexKind, _ on: Bool, type typeName: String, field fieldName: String) throws {
        guard var type = recordTypes[typeName] else {
            throw CloudError(.unknownItem, "Unknown record type '\(typeName)'")
        }
        let storedName: String
        if let system = SystemField(anyName: fieldName) {
            guard system.allows(kind) || !on else {
                throw CloudError(.invalidArguments, "System field '\(system.consoleName)' cannot be \(kind.keyword)")
            }
            storedName = system.rawValue
        } else {
            guard let field = type.field(named: fieldName) else {
                throw CloudError(.unknownItem, "Unknown field '\(fieldName)' on type '\(typeName)'")
            }
            guard field.type.allows(kind) || !on else {
                throw CloudError(.invalidArguments, "Field '\(fieldName)' of type \(field.type) cannot be \(kind.keyword)")
            }
            storedName = fieldName
        }
        let before = type
        type.update(storedName) { $0.set(kind, on) }
        guard type != before else { return }
        recordTypes[typeName] = type
        version += 1
    }

    /// Creates a custom role.
    package mutating func createRole(_ name: String) throws {
        guard SecurityRole.isValidCustomName(name) else {
            throw CloudError(.invalidArguments, "Role name '\(name)' is invalid: custom roles start with a letter; _world, _icloud and _creator are built in")
        }
        guard !roles.contains(name) else { return }
        roles.insert(name)
        version += 1
    }

    /// Deletes a custom role, its grants and its members.
    package mutating func deleteRole(_ name: String) throws {
        guard roles.contains(name) else {
            throw CloudError(.unknownItem, "Unknown role '\(name)'")
        }
        roles.remove(name)
        for key in recordTypes.keys { recordTypes[key]?.grants[name] = nil }
        for user in members.keys { members[user]?.remove(name) }
        members = members.filter { !$0.value.isEmpty }
        version += 1
    }

    /// Gives `role` `permissions` on `recordType` (adding to what it had).
    package mutating func grant(_ permissions: Permissions, to role: String, on recordType: String) throws {
        try requireRole(role)
        guard var type = recordTypes[recordType] else {
            throw CloudError(.unknownItem, "Unknown record type '\(recordType)'")
        }
        let before = type.grants[role] ?? []
        guard !before.isSuperset(of: permissions) else { return }
        type.grants[role] = before.union(permissions)
        recordTypes[recordType] = type
        version += 1
    }

    /// Takes `permissions` on `recordType` away from `role`.
    package mutating func revoke(_ permissions: Permissions, from role: String, on recordType: String) throws {
        try requireRole(role)
        guard var type = recordTypes[recordType] else {
            throw CloudError(.unknownItem, "Unknown record type '\(recordType)'")
        }
        guard let before = type.grants[role], !before.isDisjoint(with: permissions) else { return }
        let after = before.subtracting(permissions)
        type.grants[role] = after.isEmpty ? nil : after
        recordTypes[recordType] = type
        version += 1
    }

    /// Gives a user a custom role.
    package mutating func assign(role: String, to user: String) throws {
        guard roles.contains(role) else {
            throw CloudError(.unknownItem, "Unknown role '\(role)': only custom roles are assigned to users")
        }
        members[user, default: []].insert(role)
    }

    /// Takes a custom role away from a user.
    package mutating func unassign(role: String, from user: String) throws {
        guard roles.contains(role) else { throw CloudError(.unknownItem, "Unknown role '\(role)'") }
        members[user]?.remove(role)
        if members[user]?.isEmpty == true { members[user] = nil }
    }

    private func requireRole(_ role: String) throws {
        guard SecurityRole.builtIn.contains(role) || roles.contains(role) else {
            throw CloudError(.unknownItem, "Unknown role '\(role)'")
        }
    }
}
