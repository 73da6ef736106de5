import Foundation
import LocalCloud
import LocalCloudServer
import Logging
import PostgresNIO

/// The identity store (API tokens, accounts, web auth tokens, server keys) in PostgreSQL, so every
/// `localcloud serve` node on one database accepts the same tokens and sees a revocation at once.
///
/// ```swift
/// let identity = try await PostgresIdentityStore.open(client: client)   // migrates under an advisory lock
/// try await identity.insertAPIToken(token, container: "iCloud.FoodPin")
/// ```
///
/// Rows carry their container, as the SQLite store's per-container files do. Nothing is cached
/// per node: a lookup is one indexed read, and a token the console revokes is refused by every
/// node on its next request.
package final class PostgresIdentityStore: IdentityStore {
    let client: PostgresClient
    let logger: Logger

    private init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The store on `client` (whose `run()` the caller drives), its tables created or migrated first.
    package static func open(client: PostgresClient, logger: Logger = Logger(label: "LocalCloud.identity")) async throws -> PostgresIdentityStore {
        try await ServerStateMigrations.migrate(client, logger: logger)
        return PostgresIdentityStore(client: client, logger: logger)
    }

    // MARK: API tokens

    package func insertAPIToken(_ token: APIToken, container: String) async throws {
        try await run {
            try await client.query("""
                INSERT INTO localcloud_api_tokens (container, digest, environment, name, created, revoked)
                VALUES (\(container), \(token.digest), \(token.environment.rawValue), \(token.name), \(token.created.timeIntervalSince1970), \(token.revoked?.timeIntervalSince1970))
                """, logger: logger)
        }
    }

    package func apiToken(digest: String, container: String) async throws -> APIToken? {
        try await run {
            let rows = try await client.query("""
                SELECT digest, environment, name, created, revoked FROM localcloud_api_tokens
                WHERE container = \(container) AND digest = \(digest)
                """, logger: logger)
            for try await row in rows.decode((String, String, String?, Double, Double?).self) { return Self.apiToken(row) }
            return nil
        }
    }

    package func apiTokens(container: String) async throws -> [APIToken] {
        try await run {
            let rows = try await client.query("""
                SELECT digest, environment, name, created, revoked FROM localcloud_api_tokens
                WHERE container = \(container) ORDER BY created, digest
                """, logger: logger)
            var tokens: [APIToken] = []
            for try await row in rows.decode((String, String, String?, Double, Double?).self) { tokens.append(Self.apiToken(row)) }
            return tokens
        }
    }

    package func revokeAPIToken(digest: String, container: String, at date: Date) async throws -> Bool {
        try await run {
            try await updatedCount(client.query("""
                UPDATE localcloud_api_tokens SET revoked = \(date.timeIntervalSince1970)
                WHERE container = \(container) AND digest = \(digest) AND revoked IS NULL RETURNING 1
                """, logger: logger)) > 0
        }
    }

    private static func apiToken(_ row: (String, String, String?, Double, Double?)) -> APIToken {
        APIToken(digest: row.0, environment: Container.Environment(rawValue: row.1) ?? .development, name: row.2,
                 created: Date(timeIntervalSince1970: row.3), revoked: row.4.map(Date.init(timeIntervalSince1970:)))
    }

    // MARK: Accounts

    package func insertUser(_ user: UserAccount, passwordHash: String, container: String) async throws {
        let inserted = try await run {
            try await updatedCount(client.query("""
                INSERT INTO localcloud_users (container, name, password_hash, discoverable, created)
                VALUES (\(container), \(user.name), \(passwordHash), \(user.discoverable), \(user.created.timeIntervalSince1970))
                ON CONFLICT (container, name) DO NOTHING RETURNING 1
                """, logger: logger))
        }
        guard inserted > 0 else { throw CloudError(.constraintViolation, "User '\(user.name)' exists already") }
    }

    package func user(named name: String, container: String) async throws -> UserAccount? {
        try await run {
            let rows = try await client.query("""
                SELECT name, created, discoverable FROM localcloud_users WHERE container = \(container) AND name = \(name)
                """, logger: logger)
            for try await (name, created, discoverable) in rows.decode((String, Double, Bool).self) {
                return UserAccount(name: name, created: Date(timeIntervalSince1970: created), discoverable: discoverable)
            }
            return nil
        }
    }

    package func passwordHash(user name: String, container: String) async throws -> String? {
        try await run {
            let rows = try await client.query("""
                SELECT password_hash FROM localcloud_users WHERE container = \(container) AND name = \(name)
                """, logger: logger)
            for try await hash in rows.decode(String.self) { return hash }
            return nil
        }
    }

    package func users(container: String) async throws -> [UserAccount] {
        try await run {
            let rows = try await client.query("""
                SELECT name, created, discoverable FROM localcloud_users WHERE container = \(container) ORDER BY name
                """, logger: logger)
            var users: [UserAccount] = []
            for try await (name, created, discoverable) in rows.decode((String, Double, Bool).self) {
                users.append(UserAccount(name: name, created: Date(timeIntervalSince1970: created), discoverable: discoverable))
            }
            return users
        }
    }

    // MARK: Web auth tokens

    package func insertWebAuthToken(_ token: WebAuthToken, container: String) async throws {
        try await run {
            try await client.withTransaction(logger: logger) { connection in
                // Tokens expired for a day are of no use to anyone: drop them as new ones arrive.
                try await connection.query("""
                    DELETE FROM localcloud_web_auth_tokens WHERE container = \(container) AND expires < \(token.created.timeIntervalSince1970 - 24 * 3600)
                    """, logger: logger)
                try await connection.query("""
                    INSERT INTO localcloud_web_auth_tokens (container, digest, user_name, created, expires, revoked)
                    VALUES (\(container), \(token.digest), \(token.user), \(token.created.timeIntervalSince1970), \(token.expires.timeIntervalSince1970), \(token.revoked?.timeIntervalSince1970))
                    """, logger: logger)
            }
        }
    }

    package func webAuthToken(digest: String, container: String) async throws -> WebAuthToken? {
        try await run {
            let rows = try await client.query("""
                SELECT digest, user_name, created, expires, revoked FROM localcloud_web_auth_tokens
                WHERE container = \(container) AND digest = \(digest)
                """, logger: logger)
            for try await (digest, user, created, expires, revoked) in rows.decode((String, String, Double, Double, Double?).self) {
                return WebAuthToken(digest: digest, user: user, created: Date(timeIntervalSince1970: created),
                                    expires: Date(timeIntervalSince1970: expires), revoked: revoked.map(Date.init(timeIntervalSince1970:)))
            }
            return nil
        }
    }

    package func revokeWebAuthTokens(user name: String, container: String, at date: Date) async throws -> Int {
        try await run {
            try await updatedCount(client.query("""
                UPDATE localcloud_web_auth_tokens SET revoked = \(date.timeIntervalSince1970)
                WHERE container = \(container) AND user_name = \(name) AND revoked IS NULL RETURNING 1
                """, logger: logger))
        }
    }

    // MARK: Server-to-server keys

    package func insertServerKey(_ key: ServerKey, container: String) async throws {
        let inserted = try await run {
            try await updatedCount(client.query("""
                INSERT INTO localcloud_server_keys (container, id, environment, public_key, name, created, revoked)
                VALUES (\(container), \(key.id), \(key.environment.rawValue), \(key.publicKeyPEM), \(key.name), \(key.created.timeIntervalSince1970), \(key.revoked?.timeIntervalSince1970))
                ON CONFLICT (container, id) DO NOTHING RETURNING 1
                """, logger: logger))
        }
        guard inserted > 0 else { throw CloudError(.constraintViolation, "That public key is registered already as \(key.id)") }
    }

    package func serverKey(id: String, container: String) async throws -> ServerKey? {
        try await run {
            let rows = try await client.query("""
                SELECT id, environment, public_key, name, created, revoked FROM localcloud_server_keys
                WHERE container = \(container) AND id = \(id)
                """, logger: logger)
            for try await row in rows.decode((String, String, String, String?, Double, Double?).self) { return Self.serverKey(row) }
            return nil
        }
    }

    package func serverKeys(container: String) async throws -> [ServerKey] {
        try await run {
            let rows = try await client.query("""
                SELECT id, environment, public_key, name, created, revoked FROM localcloud_server_keys
                WHERE container = \(container) ORDER BY created, id
                """, logger: logger)
            var keys: [ServerKey] = []
            for try await row in rows.decode((String, String, String, String?, Double, Double?).self) { keys.append(Self.serverKey(row)) }
            return keys
        }
    }

    package func revokeServerKey(id: String, container: String, at date: Date) async throws -> Bool {
        try await run {
            try await updatedCount(client.query("""
                UPDATE localcloud_server_keys SET revoked = \(date.timeIntervalSince1970)
                WHERE container = \(container) AND id = \(id) AND revoked IS NULL RETURNING 1
                """, logger: logger)) > 0
        }
    }

    private static func serverKey(_ row: (String, String, String, String?, Double, Double?)) -> ServerKey {
        ServerKey(id: row.0, environment: Container.Environment(rawValue: row.1) ?? .development, publicKeyPEM: row.2, name: row.3,
                  created: Date(timeIntervalSince1970: row.4), revoked: row.5.map(Date.init(timeIntervalSince1970:)))
    }

    // MARK: Errors

    /// Runs one call, turning PostgreSQL's failures into CloudErrors the server maps to responses.
    @discardableResult
    private func run<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as CloudError {
            throw error
        } catch {
            throw PostgresFailure.cloudError(error, while: "the identity store")
        }
    }

    /// How many rows an `INSERT/UPDATE … RETURNING 1` touched.
    private func updatedCount(_ rows: PostgresRowSequence) async throws -> Int {
        var count = 0
        for try await _ in rows { count += 1 }
        return count
    }
}
