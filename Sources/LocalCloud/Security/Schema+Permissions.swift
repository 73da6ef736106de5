extension Schema {
    /// Decides whether `user` may do `action` on a record of `recordType` in the public database.
    ///
    /// The roles that apply: `_world` always; `_icloud` when signed in; `_creator` when the user
    /// created the record (never for `create`, nor for queries, which cover many creators);
    /// and the custom roles the user holds. The action is allowed when one of them has the permission.
    ///
    /// - Parameters:
    ///   - user: the signed-in user, `nil` with no account.
    ///   - roles: the custom roles `user` holds (``roles(of:)``).
    ///   - creator: the user who created the record, for `read` and `write` of an existing record.
    /// - Throws: `CloudError(.notAuthenticated)` for a create or write with no account;
    ///   `CloudError(.permissionFailure)` naming the type and the missing permission.
    package func checkPermission(
        _ action: RecordAction, recordType: String, user: String?, roles: Set<String>, creator: String?
    ) throws {
        // The developer (a server-to-server key) has every permission in the public database, as in CloudKit.
        if user == Schema.developerUserName { return }
        if user == nil && action != .read {
            throw CloudError(.notAuthenticated,
                             "Not Authenticated: \(action.keyword) on type '\(recordType)' needs a signed-in user (set LOCALCLOUD_USER)")
        }
        // A type the schema does not know yet has no records to protect: development creates it
        // just in time with the default grants, and production refuses it as unknown.
        guard let type = recordTypes[recordType] else { return }
        guard type.grants.values.contains(where: { !$0.isEmpty }) else {
            throw CloudError(.permissionFailure,
                             "Permission Failure: type '\(recordType)' grants no permissions to any role, so it cannot be used in the public database")
        }
        var applicable: Set<String> = [SecurityRole.world]
        if let user {
            applicable.insert(SecurityRole.icloud)
            applicable.formUnion(roles)
            if action != .create, let creator, creator == user {
                applicable.insert(SecurityRole.creator)
            }
        }
        let granted = applicable.reduce(into: Permissions()) { $0.formUnion(type.grants[$1] ?? []) }
        guard granted.contains(action.permission) else {
            let who = user.map { "user '\($0)'" } ?? "a user with no account"
            throw CloudError(.permissionFailure,
                             "Permission Failure: \(action.keyword) operation not permitted on type '\(recordType)' for \(who)")
        }
    }

    /// The user a request signed with a server-to-server key acts as: the container's developer,
    /// who may read, create and write every record type in the public database whatever the roles grant.
    ///
    /// No account can take this name: account names start with a letter or a digit.
    package static let developerUserName = "_developer"

    /// ``checkPermission(_:recordType:user:roles:creator:)`` with the custom roles `user` holds in this schema.
    package func checkPermission(_ action: RecordAction, recordType: String, user: String?, creator: String?) throws {
        try checkPermission(action, recordType: recordType, user: user, roles: user.map(roles(of:)) ?? [], creator: creator)
    }

    /// A private database belongs to its owner alone: no account means no private database,
    /// and no user can reach another's.
    ///
    /// - Throws: `CloudError(.notAuthenticated)` with no account, `CloudError(.permissionFailure)` for another user's database.
    package static func checkPrivateAccess(user: String?, owner: String) throws {
        guard let user else {
            throw CloudError(.notAuthenticated, "Not Authenticated: the private database needs a signed-in user (set LOCALCLOUD_USER)")
        }
        guard user == owner else {
            throw CloudError(.permissionFailure, "Permission Failure: the private database of '\(owner)' belongs to that user alone")
        }
    }
}
