import Foundation
import LocalCloud

/// Where the server keeps who may call it: API tokens, accounts, web auth tokens and
/// server-to-server keys, per container.
///
/// Conformances store secrets only as digests: a token's SHA-256 in lowercase hex, a password's
/// bcrypt hash. Generating, hashing and checking live once, in the protocol extension
/// (`IdentityStore+Credentials.swift`), so a conformance only stores and finds rows.
///
/// ```swift
/// let store = try SQLiteIdentityStore(dataDirectory: dataDir)
/// let token = try await store.createAPIToken(container: "iCloud.FoodPin", environment: .development, name: "web")
/// ```
package protocol IdentityStore: Sendable {
    // MARK: API tokens

    func insertAPIToken(_ token: APIToken, container: String) async throws
    /// The token with this digest, revoked or not.
    func apiToken(digest: String, container: String) async throws -> APIToken?
    /// Every token of the container, oldest first.
    func apiTokens(container: String) async throws -> [APIToken]
    /// Marks the token revoked; `false` when there is no such live token.
    func revokeAPIToken(digest: String, container: String, at date: Date) async throws -> Bool

    // MARK: Accounts

    /// - Throws: `CloudError(.constraintViolation)` when the name is taken.
    func insertUser(_ user: UserAccount, passwordHash: String, container: String) async throws
    func user(named name: String, container: String) async throws -> UserAccount?
    /// The bcrypt hash of the account's password; `nil` for no such account.
    func passwordHash(user name: String, container: String) async throws -> String?
    /// Every account of the container, by name.
    func users(container: String) async throws -> [UserAccount]

    // MARK: Web auth tokens

    func insertWebAuthToken(_ token: WebAuthToken, container: String) async throws
    /// The token with this digest, revoked or expired or not.
    func webAuthToken(digest: String, container: String) async throws -> WebAuthToken?
    /// Revokes every live token of the account; returns how many.
    func revokeWebAuthTokens(user name: String, container: String, at date: Date) async throws -> Int

    // MARK: Server-to-server keys

    /// - Throws: `CloudError(.constraintViolation)` when the key is registered already.
    func insertServerKey(_ key: ServerKey, container: String) async throws
    /// The key with this ID, revoked or not.
    func serverKey(id: String, container: String) async throws -> ServerKey?
    func serverKeys(container: String) async throws -> [ServerKey]
    /// Marks the key revoked; `false` when there is no such live key.
    func revokeServerKey(id: String, container: String, at date: Date) async throws -> Bool
}

/// An API token as stored: its digest, never the token.
package struct APIToken: Sendable, Hashable {
    /// SHA-256 of the token, lowercase hex.
    package var digest: String
    package var environment: Container.Environment
    package var name: String?
    package var created: Date
    package var revoked: Date?

    package init(digest: String, environment: Container.Environment, name: String?, created: Date, revoked: Date? = nil) {
        self.digest = digest
        self.environment = environment
        self.name = name
        self.created = created
        self.revoked = revoked
    }

    /// What `tokens list` shows and `tokens revoke` accepts: the digest's first 12 hex digits,
    /// which name the token without revealing it.
    package var id: String { String(digest.prefix(12)) }
}

/// An account that can sign in to a container.
package struct UserAccount: Sendable, Hashable {
    package var name: String
    package var created: Date
    /// Listed by `users/discover`.
    package var discoverable: Bool

    package init(name: String, created: Date, discoverable: Bool = true) {
        self.name = name
        self.created = created
        self.discoverable = discoverable
    }

    /// The account's user record name, as records name their creator (`_alice`).
    package var userRecordName: String { "_" + name }
}

/// A web auth token as stored: its digest, the account it signs in, and how long it lasts.
package struct WebAuthToken: Sendable, Hashable {
    /// SHA-256 of the token, lowercase hex.
    package var digest: String
    package var user: String
    package var created: Date
    package var expires: Date
    package var revoked: Date?

    package init(digest: String, user: String, created: Date, expires: Date, revoked: Date? = nil) {
        self.digest = digest
        self.user = user
        self.created = created
        self.expires = expires
        self.revoked = revoked
    }

    package func isLive(at date: Date) -> Bool { revoked == nil && date < expires }
}

/// A server-to-server key: the public half of a P-256 key pair whose private half signs requests.
package struct ServerKey: Sendable, Hashable {
    /// SHA-256 of the public key's DER encoding, lowercase hex (64 digits).
    package var id: String
    package var environment: Container.Environment
    /// The public key, PEM.
    package var publicKeyPEM: String
    package var name: String?
    package var created: Date
    package var revoked: Date?

    package init(id: String, environment: Container.Environment, publicKeyPEM: String, name: String?, created: Date, revoked: Date? = nil) {
        self.id = id
        self.environment = environment
        self.publicKeyPEM = publicKeyPEM
        self.name = name
        self.created = created
        self.revoked = revoked
    }
}
