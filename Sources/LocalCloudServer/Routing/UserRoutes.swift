import Foundation
import Hummingbird
import LocalCloud

// users/current, users/caller, users/discover (GET: every discoverable user; POST: by lookupInfos)
// and users/lookup/email (discoverable users by email address: how a share finds its participants).
//
// A LocalCloud account is its name: `userRecordName` is `_` + name, as records name their creator,
// and the name is the given name in `nameComponents`. Every account is discoverable unless added
// with `--undiscoverable`.
extension CloudServer {
    func addUserRoutes(to router: Router<ServerRequestContext>) {
        onDatabase(router, .get, "users/current") { call in
            let name = try Self.signedInName(call, "users/current")
            // The reference: `userRecordName`, and `firstName`/`lastName` when the user is discoverable.
            var body: [String: JSONValue] = ["userRecordName": .string("_" + name)]
            if try await self.isDiscoverable(name, call) { body["firstName"] = .string(name) }
            return .object(body)
        }
        onDatabase(router, .get, "users/caller") { call in
            let name = try Self.signedInName(call, "users/caller")
            let discoverable = try await self.isDiscoverable(name, call)
            return Self.userIdentityJSON(name: name, discoverable: discoverable)
        }
        onDatabase(router, .get, "users/discover") { call in
            _ = try Self.signedInName(call, "users/discover")
            let users = try await self.discoverableUsers(call)
            return .object(["users": .array(users.map { Self.userIdentityJSON(name: $0.name, discoverable: true) })])
        }
        onDatabase(router, .post, "users/discover") { call in
            _ = try Self.signedInName(call, "users/discover")
            let lookups = try call.array("lookupInfos", max: Self.maximumItems)
            let users = try await self.discoverableUsers(call)
            let byRecordName = Dictionary(users.map { ($0.userRecordName, $0) }, uniquingKeysWith: { first, _ in first })
            var found: [JSONValue] = []
            for (index, lookup) in lookups.enumerated() {
                guard lookup.objectValue != nil else { throw ServerError(.badRequest, "lookupInfos[\(index)] must be an object") }
                // Accounts have no phone number: userRecordName or emailAddress can match.
                if let recordName = lookup["userRecordName"]?.stringValue, let user = byRecordName[recordName] {
                    found.append(Self.userIdentityJSON(name: user.name, discoverable: true))
                } else if let user = Self.user(withEmail: lookup["emailAddress"]?.stringValue, in: users) {
                    found.append(Self.userIdentityJSON(name: user.name, discoverable: true, email: user.email))
                }
            }
            return .object(["users": .array(found)])
        }
        // The reference's request: {"users": [{"emailAddress": …}]}; the answer lists the users found
        // (User Dictionaries), leaving out addresses no discoverable account has.
        onDatabase(router, .post, "users/lookup/email") { call in
            _ = try Self.signedInName(call, "users/lookup/email")
            let lookups = try call.array("users", max: Self.maximumItems)
            let users = try await self.discoverableUsers(call)
            var found: [JSONValue] = []
            for (index, lookup) in lookups.enumerated() {
                guard let address = lookup["emailAddress"]?.stringValue else {
                    throw ServerError(.badRequest, "users[\(index)] must be an object with an emailAddress string")
                }
                if let user = Self.user(withEmail: address, in: users) {
                    found.append(.object(["userRecordName": .string(user.userRecordName), "firstName": .string(user.name),
                                          "emailAddress": .string(user.email ?? address)]))
                }
            }
            return .object(["users": .array(found)])
        }
    }

    /// The caller's account name; AUTHENTICATION_REQUIRED (421, with the sign-in page) without one.
    static func signedInName(_ call: DatabaseCall, _ what: String) throws -> String {
        try call.requireUser(what)
        return call.identity.userName ?? ""
    }

    /// The reference's User Identity dictionary: `userRecordName`, `lookupInfo`, and `nameComponents`
    /// when the user is discoverable.
    static func userIdentityJSON(name: String, discoverable: Bool, email: String? = nil) -> JSONValue {
        let recordName = JSONValue.string("_" + name)
        var lookupInfo: [String: JSONValue] = ["userRecordName": recordName]
        if let email { lookupInfo["emailAddress"] = .string(email) }
        var body: [String: JSONValue] = [
            "userRecordName": recordName,
            "lookupInfo": .object(lookupInfo),
        ]
        if discoverable { body["nameComponents"] = .object(["givenName": .string(name)]) }
        return .object(body)
    }

    /// The account with this email address (compared as accounts keep it, lowercased), if any.
    static func user(withEmail address: String?, in users: [UserAccount]) -> UserAccount? {
        guard let address, let email = try? UserAccount.normalizedEmail(address) else { return nil }
        return users.first { $0.email == email }
    }

    func discoverableUsers(_ call: DatabaseCall) async throws -> [UserAccount] {
        guard let identity else { return [] }
        return try await identity.store.users(container: call.containerIdentifier).filter(\.discoverable)
    }

    func isDiscoverable(_ name: String, _ call: DatabaseCall) async throws -> Bool {
        guard let identity else { return true }
        return try await identity.store.user(named: name, container: call.containerIdentifier)?.discoverable ?? false
    }
}
