import Foundation
import LocalCloud

// Making and checking console credentials, once for every store: conformances see only hashes and digests.
extension ConsoleStore {
    /// Adds an administrator with a bcrypt hash of its password.
    ///
    /// - Throws: `CloudError(.invalidArguments)` for a bad name or password, `.constraintViolation` for a taken name.
    @discardableResult
    package func addAdmin(_ name: String, password: String, hasher: PasswordHasher = .standard,
                          now: Date = Date()) async throws -> ConsoleAdmin {
        try SQLiteIdentityStore.validate(userName: name)
        let hash = try await hasher.hash(password)
        let admin = ConsoleAdmin(name: name, created: now)
        try await insertAdmin(admin, passwordHash: hash)
        return admin
    }

    /// Whether the administrator exists and `password` is its password; as slow for an unknown name.
    package func checkAdminPassword(_ name: String, password: String, hasher: PasswordHasher = .standard) async throws -> Bool {
        let hash = try await adminPasswordHash(name)
        return await hasher.verify(password, hash: hash)
    }

    /// Starts a session; returns the cookie's token (shown once, stored as its digest).
    package func startSession(admin: String, lifetime: TimeInterval, now: Date = Date()) async throws -> String {
        let token = Secret.webAuthToken()
        try await insertSession(ConsoleSession(digest: Secret.digest(token), admin: admin, created: now,
                                               expires: now.addingTimeInterval(lifetime)))
        return token
    }

    /// The live session a cookie's token names, if any. (Removing an administrator deletes its
    /// sessions, so a session found belongs to an administrator who exists.)
    package func liveSession(token: String, now: Date = Date()) async throws -> ConsoleSession? {
        guard !token.isEmpty, token.utf8.count <= 512 else { return nil }
        let digest = Secret.digest(token)
        guard let session = try await session(digest: digest), Secret.constantTimeEquals(session.digest, digest),
              session.isLive(at: now)
        else { return nil }
        return session
    }

    /// Ends the session a cookie's token names.
    package func endSession(token: String, now: Date = Date()) async throws {
        try await endSession(digest: Secret.digest(token), at: now)
    }

    /// The CSRF token of a session: derived from its secret, so it needs no storage and every node agrees.
    package static func csrfToken(sessionToken: String) -> String {
        Secret.digest("console-csrf:" + sessionToken)
    }
}
