import Crypto
import Foundation
import LocalCloud

// Making and checking credentials, once for every store: conformances see only digests and hashes.
extension IdentityStore {
    // MARK: API tokens

    /// Creates an API token for one container and environment.
    ///
    /// - Returns: the token (64 hex digits). It is shown once: only its digest is stored.
    package func createAPIToken(container: String, environment: Container.Environment, name: String? = nil,
                                now: Date = Date()) async throws -> String {
        let token = Secret.apiToken()
        try await insertAPIToken(APIToken(digest: Secret.digest(token), environment: environment, name: name, created: now),
                                 container: container)
        return token
    }

    /// Whether `token` is a live API token of this container and environment.
    package func isLiveAPIToken(_ token: String, container: String, environment: Container.Environment) async throws -> Bool {
        guard Secret.isHex64(token) else { return false }
        let digest = Secret.digest(token.lowercased())
        guard let stored = try await apiToken(digest: digest, container: container) else { return false }
        return Secret.constantTimeEquals(stored.digest, digest) && stored.revoked == nil && stored.environment == environment
    }

    /// Revokes an API token, named by the token itself or by the ID `tokens list` shows (a unique digest prefix).
    ///
    /// - Throws: `CloudError(.unknownItem)` when nothing or more than one token matches.
    package func revokeAPIToken(_ tokenOrID: String, container: String, now: Date = Date()) async throws -> APIToken {
        let tokens = try await apiTokens(container: container)
        let match: [APIToken]
        if Secret.isHex64(tokenOrID) {
            let digest = Secret.digest(tokenOrID.lowercased())
            match = tokens.filter { Secret.constantTimeEquals($0.digest, digest) }
        } else if tokenOrID.utf8.count >= 8 {
            match = tokens.filter { $0.digest.hasPrefix(tokenOrID.lowercased()) }
        } else {
            match = []
        }
        guard match.count == 1, var token = match.first else {
            throw CloudError(.unknownItem, match.isEmpty ? "No API token matches" : "More than one API token matches that ID")
        }
        guard token.revoked == nil else { throw CloudError(.unknownItem, "API token \(token.id) is revoked already") }
        _ = try await revokeAPIToken(digest: token.digest, container: container, at: now)
        token.revoked = now
        return token
    }

    // MARK: Accounts

    /// Adds an account with a bcrypt hash of its password.
    ///
    /// - Throws: `CloudError(.invalidArguments)` for a bad name or password, `.constraintViolation` for a taken name.
    @discardableResult
    package func addUser(_ name: String, password: String, container: String, discoverable: Bool = true, email: String? = nil,
                         hasher: PasswordHasher = .standard, now: Date = Date()) async throws -> UserAccount {
        try Self.validate(userName: name)
        let email = try email.map(UserAccount.normalizedEmail)
        if let email, try await users(container: container).contains(where: { $0.email == email }) {
            throw CloudError(.constraintViolation, "Another user has the email address \(email)")
        }
        let hash = try await hasher.hash(password)
        let user = UserAccount(name: name, created: now, discoverable: discoverable, email: email)
        try await insertUser(user, passwordHash: hash, container: container)
        return user
    }

    /// Sets a new password and signs the account out everywhere (its web auth tokens are revoked).
    ///
    /// - Throws: `CloudError(.invalidArguments)` for a password bcrypt cannot take, `.unknownItem` for no such account.
    package func resetPassword(user name: String, password: String, container: String,
                               hasher: PasswordHasher = .standard, now: Date = Date()) async throws {
        let hash = try await hasher.hash(password)
        guard try await updatePasswordHash(hash, user: name, container: container) else {
            throw CloudError(.unknownItem, "No user '\(name)'")
        }
        _ = try await revokeWebAuthTokens(user: name, container: container, at: now)
    }

    /// Disables an account (it cannot sign in, and its tokens are revoked) or enables it again.
    ///
    /// - Returns: how many web auth tokens were revoked.
    /// - Throws: `CloudError(.unknownItem)` for no such account.
    @discardableResult
    package func setUserDisabled(_ disabled: Bool, user name: String, container: String, now: Date = Date()) async throws -> Int {
        guard try await setDisabled(disabled, user: name, container: container) else {
            throw CloudError(.unknownItem, "No user '\(name)'")
        }
        return disabled ? try await revokeWebAuthTokens(user: name, container: container, at: now) : 0
    }

    /// Whether the account exists and `password` is its password; as slow for an unknown account.
    package func checkPassword(user name: String, password: String, container: String,
                               hasher: PasswordHasher = .standard) async throws -> Bool {
        let hash = try await passwordHash(user: name, container: container)
        return await hasher.verify(password, hash: hash)
    }

    /// Account names: 1–64 letters, digits, `.`, `-`, `_` and `@`, starting with a letter or digit
    /// (so no account can be `_developer`, the server-to-server identity).
    package static func validate(userName name: String) throws {
        let bytes = Array(name.utf8)
        let isAlphanumeric = { (byte: UInt8) in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        }
        guard let first = bytes.first, isAlphanumeric(first), bytes.count <= 64,
              bytes.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
                                 || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "@") })
        else {
            throw CloudError(.invalidArguments,
                             "Invalid user name: 1-64 letters, digits, '.', '-', '_' or '@', starting with a letter or digit")
        }
    }

    // MARK: Web auth tokens

    /// Signs an account in: a new web auth token valid for `lifetime`.
    ///
    /// - Returns: the token (128 URL-safe base64 characters), shown once.
    /// - Throws: `CloudError(.unknownItem)` for no such account.
    package func issueWebAuthToken(user name: String, container: String, lifetime: Duration,
                                   now: Date = Date()) async throws -> String {
        guard let account = try await user(named: name, container: container) else {
            throw CloudError(.unknownItem, "No user '\(name)'")
        }
        guard !account.disabled else { throw CloudError(.permissionFailure, "User '\(name)' is disabled") }
        let token = Secret.webAuthToken()
        let seconds = Double(lifetime.components.seconds) + Double(lifetime.components.attoseconds) / 1e18
        try await insertWebAuthToken(WebAuthToken(digest: Secret.digest(token), user: name, created: now,
                                                  expires: now.addingTimeInterval(seconds)), container: container)
        return token
    }

    /// The account a live web auth token signs in; `nil` for an unknown, expired or revoked token.
    package func signedInUser(webAuthToken token: String, container: String, now: Date = Date()) async throws -> String? {
        guard !token.isEmpty, token.utf8.count <= 512 else { return nil }
        let digest = Secret.digest(token)
        guard let stored = try await webAuthToken(digest: digest, container: container),
              Secret.constantTimeEquals(stored.digest, digest), stored.isLive(at: now)
        else { return nil }
        return stored.user
    }

    /// Signs an account out everywhere: revokes all its web auth tokens.
    ///
    /// - Throws: `CloudError(.unknownItem)` for no such account.
    package func signOut(user name: String, container: String, now: Date = Date()) async throws -> Int {
        guard try await user(named: name, container: container) != nil else {
            throw CloudError(.unknownItem, "No user '\(name)'")
        }
        return try await revokeWebAuthTokens(user: name, container: container, at: now)
    }

    /// Signs one client out: revokes the web auth token it presents (what `foodpin logout` asks for).
    ///
    /// - Returns: whether a live token was revoked (`false` for an unknown, expired or revoked one).
    package func signOut(webAuthToken token: String, container: String, now: Date = Date()) async throws -> Bool {
        guard !token.isEmpty, token.utf8.count <= 512 else { return false }
        return try await revokeWebAuthToken(digest: Secret.digest(token), container: container, at: now)
    }

    // MARK: Server-to-server keys

    /// Registers a P-256 public key (PEM, as `openssl ec -in eckey.pem -pubout` writes it).
    ///
    /// - Returns: the key, whose ``ServerKey/id`` is the SHA-256 of its DER encoding in hex.
    /// - Throws: `CloudError(.invalidArguments)` for text that is not a P-256 public key.
    package func addServerKey(publicKeyPEM: String, container: String, environment: Container.Environment,
                              name: String? = nil, now: Date = Date()) async throws -> ServerKey {
        let key: P256.Signing.PublicKey
        do {
            key = try P256.Signing.PublicKey(pemRepresentation: publicKeyPEM)
        } catch {
            throw CloudError(.invalidArguments, "Not a P-256 (prime256v1) public key in PEM: create one with "
                             + "`openssl ecparam -name prime256v1 -genkey -noout -out eckey.pem` and `openssl ec -in eckey.pem -pubout`")
        }
        let id = Hex.encode(SHA256Hasher.digest(of: key.derRepresentation))
        let serverKey = ServerKey(id: id, environment: environment, publicKeyPEM: key.pemRepresentation, name: name, created: now)
        try await insertServerKey(serverKey, container: container)
        return serverKey
    }

    /// The live key with this ID for this environment, as a verifier.
    package func liveServerKey(id: String, container: String, environment: Container.Environment) async throws -> P256.Signing.PublicKey? {
        guard Secret.isHex64(id), let stored = try await serverKey(id: id.lowercased(), container: container),
              stored.revoked == nil, stored.environment == environment
        else { return nil }
        return try? P256.Signing.PublicKey(pemRepresentation: stored.publicKeyPEM)
    }
}
