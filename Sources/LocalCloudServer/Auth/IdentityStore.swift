import Foundation
import LocalCloud

/// Where the server keeps who may call it: API tokens, accounts, web auth tokens and
/// server-to-server keys, per container.
///
/// API tokens and server-to-server keys belong to one container and environment, as in CloudKit;
/// accounts and their web auth tokens to the container (both environments).
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
    /// The bcrypt hash of the account's password; `nil` for no such account, or a disabled one.
    func passwordHash(user name: String, container: String) async throws -> String?
    /// Replaces the account's password hash; `false` when there is no such account.
    func updatePasswordHash(_ hash: String, user name: String, container: String) async throws -> Bool
    /// Disables or enables the account; `false` when there is no such account.
    func setDisabled(_ disabled: Bool, user name: String, container: String) async throws -> Bool
    /// Every account of the container, by name.
    func users(container: String) async throws -> [UserAccount]

    // MARK: Web auth tokens

    func insertWebAuthToken(_ token: WebAuthToken, container: String) async throws
    /// The token with this digest, revoked or expired or not.
    func webAuthToken(digest: String, container: String) async throws -> WebAuthToken?
    /// Revokes every live token of the account; returns how many.
    func revokeWebAuthTokens(user name: String, container: String, at date: Date) async throws -> Int
    /// Revokes one live token (a client signing itself out); `false` when there is no such live token.
    func revokeWebAuthToken(digest: String, container: String, at date: Date) async throws -> Bool

    // MARK: Server-to-server keys

    /// - Throws: `CloudError(.constraintViolation)` when the key is registered already.
    func insertServerKey(_ key: ServerKey, container: String) async throws
    /// The key with this ID, revoked or not.
    func serverKey(id: String, container: String) async throws -> ServerKey?
    func serverKeys(container: String) async throws -> [ServerKey]
    /// Marks the key revoked; `false` when there is no such live key.
    func revokeServerKey(id: String, container: String, at date: Date) async throws -> Bool

    // MARK: Changes

    /// Rings after this store revokes anything and, once ``watchCredentialChanges(container:)`` was
    /// called for a container, when another process or node changes that container's credentials.
    var credentialChanges: CredentialChanges { get }
    /// Starts hearing other processes' (or nodes') changes to the container's credentials; once per
    /// container is enough, later calls do nothing.
    func watchCredentialChanges(container: String)
}
