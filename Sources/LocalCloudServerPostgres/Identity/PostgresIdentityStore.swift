import Foundation
import LocalCloud
import LocalCloudPostgres
import LocalCloudServer
import PostgresNIO
import Synchronization

/// The server's identity store in PostgreSQL (schema `localcloud_identity`): API tokens, accounts,
/// web auth tokens and server-to-server keys, keyed by container, so every `localcloud serve`
/// node on the database accepts a token any node (or the console) issued. Token rows are kept in
/// memory while the node hears every revocation (``PostgresCredentialCache``): a revocation takes
/// effect on every node as soon as its NOTIFY arrives.
package final class PostgresIdentityStore: IdentityStore {
    static let schema = "localcloud_identity"
    private let pool: PostgresPool
    private let migrated = Mutex(false)
    package let credentialChanges = CredentialChanges()
    /// LISTENs to ``changesChannel`` once some container's changes are watched: one connection per
    /// store (per node), however many push sessions it serves.
    private let listening = Mutex<(listener: PostgresChangeListener, task: Task<Void, Never>)?>(nil)
    private let apiTokenCache = PostgresCredentialCache<APIToken>()
    private let webAuthTokenCache = PostgresCredentialCache<WebAuthToken>()

    /// The channel every node NOTIFYs after it revokes a credential (the payload is the container).
    static let changesChannel = "localcloud_credentials"

    package init(url: PostgresURL) {
        pool = PostgresStore.pool(for: url)
    }

    deinit {
        listening.withLock { listening in
            listening?.task.cancel()
            listening?.listener.stop()
        }
    }

    /// Listens for every node's revocations (all containers: a ring only asks for a recheck).
    package func watchCredentialChanges(container: String) {
        listening.withLock { listening in
            guard listening == nil else { return }
            let listener = PostgresChangeListener(url: pool.url, channel: Self.changesChannel, connectTimeout: pool.url.connectTimeout,
                                                  applicationName: "localcloud listen credentials")
            let (_, wakeup) = listener.register()
            let changes = credentialChanges
            // Waits for a NOTIFY (or a reconnection, when one may have been missed), never on a timer.
            let task = Task {
                while !Task.isCancelled {
                    await wakeup.wait(upTo: .seconds(24 * 3600))
                    if Task.isCancelled { return }
                    changes.fire()
                }
            }
            listener.start()
            listening = (listener, task)
        }
    }

    /// Tells every node (this one too, through its LISTEN) that `container`'s credentials changed.
    private func announceRevocation(container: String) async {
        apiTokenCache.removeAll()
        webAuthTokenCache.removeAll()
        var s = PostgresStatement("SELECT pg_notify(")
        s.sql += "\(s.bind(Self.changesChannel)), \(s.bind(container)))"
        _ = try? await rows(s)
        credentialChanges.fire()
    }

    static var migrator: PostgresMigrator {
        let s = schema
        var migrator = PostgresMigrator(schema: s)
        migrator.register(1, "API tokens, accounts, web auth tokens, server keys", [
            """
            CREATE TABLE \(s).api_tokens (container text NOT NULL, digest text NOT NULL, environment text NOT NULL, name text,
                created double precision NOT NULL, revoked double precision, PRIMARY KEY (container, digest))
            """,
            """
            CREATE TABLE \(s).accounts (container text NOT NULL, name text NOT NULL, password_hash text NOT NULL,
                created double precision NOT NULL, discoverable boolean NOT NULL, PRIMARY KEY (container, name))
            """,
            """
            CREATE TABLE \(s).web_auth_tokens (container text NOT NULL, digest text NOT NULL, account text NOT NULL,
                created double precision NOT NULL, expires double precision NOT NULL, revoked double precision,
                PRIMARY KEY (container, digest))
            """,
            "CREATE INDEX web_auth_tokens_by_account ON \(s).web_auth_tokens (container, account, revoked)",
            """
            CREATE TABLE \(s).server_keys (container text NOT NULL, id text NOT NULL, environment text NOT NULL,
                public_key text NOT NULL, name text, created double precision NOT NULL, revoked double precision,
                PRIMARY KEY (container, id))
            """,
        ])
        migrator.register(2, "disabled accounts", [
            "ALTER TABLE \(s).accounts ADD COLUMN disabled boolean NOT NULL DEFAULT false",
        ])
        migrator.register(3, "account email addresses", [
            "ALTER TABLE \(s).accounts ADD COLUMN email text",
        ])
        return migrator
    }

    /// Creates or migrates the tables now, so no request waits on a migration.
    package func prepare() async throws {
        _ = try await ready()
    }

    /// Creates the tables on first use (every node may; the migrator's lock serializes them).
    private func ready() async throws -> PostgresPool {
        if migrated.withLock({ $0 }) { return pool }
        try await Self.migrator.migrate(pool)
        migrated.withLock { $0 = true }
        return pool
    }

    private func rows(_ statement: PostgresStatement) async throws -> [PostgresRow] {
        do {
            return try await ready().rows(statement.sql, statement.binds)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw CloudError(.constraintViolation, "It exists already", cause: error)
        } catch {
            throw PostgresPool.cloudError(error)
        }
    }

    private static func date(_ seconds: Double?) -> Date? { seconds.map(Date.init(timeIntervalSince1970:)) }

    // MARK: API tokens

    package func insertAPIToken(_ token: APIToken, container: String) async throws {
        var s = PostgresStatement("INSERT INTO \(Self.schema).api_tokens (container, digest, environment, name, created, revoked) VALUES (")
        s.sql += [s.bind(container), s.bind(token.digest), s.bind(token.environment.rawValue), s.bind(token.name),
                  s.bind(token.created.timeIntervalSince1970), s.bind(token.revoked?.timeIntervalSince1970)].joined(separator: ", ") + ")"
        _ = try await rows(s)
    }

    package func apiToken(digest: String, container: String) async throws -> APIToken? {
        try await cachedLookup(apiTokenCache, container: container, digest: digest) {
            var s = PostgresStatement("SELECT digest, environment, name, created, revoked FROM \(Self.schema).api_tokens WHERE container = ")
            s.sql += "\(s.bind(container)) AND digest = \(s.bind(digest))"
            return try await self.rows(s).first.map(Self.apiToken)
        }
    }

    /// The row for a token digest: from memory while no revocation was announced since it was
    /// read (the stamp is taken first, so one landing during the read makes the entry stale).
    private func cachedLookup<Row: Sendable>(_ cache: PostgresCredentialCache<Row>, container: String, digest: String,
                                             _ read: () async throws -> Row?) async throws -> Row? {
        watchCredentialChanges(container: container)
        let key = container + "\u{0}" + digest
        let stamp = listening.withLock { $0?.listener.stamp() }
        if let stamp, let row = cache.row(key, stamp: stamp) { return row }
        let row = try await read()
        if let stamp, let row { cache.store(key, stamp: stamp, row: row) }
        return row
    }

    package func apiTokens(container: String) async throws -> [APIToken] {
        var s = PostgresStatement("SELECT digest, environment, name, created, revoked FROM \(Self.schema).api_tokens WHERE container = ")
        s.sql += "\(s.bind(container)) ORDER BY created, digest"
        return try await rows(s).map(Self.apiToken)
    }

    private static func apiToken(_ row: PostgresRow) throws -> APIToken {
        let (digest, environment, name, created, revoked) = try row.decode((String, String, String?, Double, Double?).self)
        return APIToken(digest: digest, environment: Container.Environment(rawValue: environment) ?? .development, name: name,
                        created: Date(timeIntervalSince1970: created), revoked: date(revoked))
    }

    package func revokeAPIToken(digest: String, container: String, at date: Date) async throws -> Bool {
        try await revoke(table: "api_tokens", key: "digest", value: digest, container: container, at: date)
    }

    private func revoke(table: String, key: String, value: String, container: String, at date: Date) async throws -> Bool {
        var s = PostgresStatement("UPDATE \(Self.schema).\(table) SET revoked = ")
        s.sql += "\(s.bind(date.timeIntervalSince1970)) WHERE container = \(s.bind(container)) AND \(key) = \(s.bind(value))"
        s.sql += " AND revoked IS NULL RETURNING 1"
        let revoked = try await !rows(s).isEmpty
        if revoked { await announceRevocation(container: container) }
        return revoked
    }

    // MARK: Accounts

    package func insertUser(_ user: UserAccount, passwordHash: String, container: String) async throws {
        var s = PostgresStatement("INSERT INTO \(Self.schema).accounts (container, name, password_hash, created, discoverable, email) VALUES (")
        s.sql += [s.bind(container), s.bind(user.name), s.bind(passwordHash), s.bind(user.created.timeIntervalSince1970),
                  s.bind(user.discoverable), s.bind(user.email)].joined(separator: ", ") + ")"
        do {
            _ = try await rows(s)
        } catch let error as CloudError where error.code == .constraintViolation {
            throw CloudError(.constraintViolation, "User '\(user.name)' exists already")
        }
    }

    package func user(named name: String, container: String) async throws -> UserAccount? {
        var s = PostgresStatement("SELECT name, created, discoverable, disabled, email FROM \(Self.schema).accounts WHERE container = ")
        s.sql += "\(s.bind(container)) AND name = \(s.bind(name))"
        return try await rows(s).first.map(Self.account)
    }

    package func passwordHash(user name: String, container: String) async throws -> String? {
        var s = PostgresStatement("SELECT password_hash FROM \(Self.schema).accounts WHERE container = ")
        s.sql += "\(s.bind(container)) AND name = \(s.bind(name)) AND NOT disabled"
        return try await rows(s).first?.decode(String.self)
    }

    package func updatePasswordHash(_ hash: String, user name: String, container: String) async throws -> Bool {
        var s = PostgresStatement("UPDATE \(Self.schema).accounts SET password_hash = ")
        s.sql += "\(s.bind(hash)) WHERE container = \(s.bind(container)) AND name = \(s.bind(name)) RETURNING 1"
        return try await !rows(s).isEmpty
    }

    package func setDisabled(_ disabled: Bool, user name: String, container: String) async throws -> Bool {
        var s = PostgresStatement("UPDATE \(Self.schema).accounts SET disabled = ")
        s.sql += "\(s.bind(disabled)) WHERE container = \(s.bind(container)) AND name = \(s.bind(name)) RETURNING 1"
        return try await !rows(s).isEmpty
    }

    package func users(container: String) async throws -> [UserAccount] {
        var s = PostgresStatement("SELECT name, created, discoverable, disabled, email FROM \(Self.schema).accounts WHERE container = ")
        s.sql += "\(s.bind(container)) ORDER BY name"
        return try await rows(s).map(Self.account)
    }

    private static func account(_ row: PostgresRow) throws -> UserAccount {
        let (name, created, discoverable, disabled, email) = try row.decode((String, Double, Bool, Bool, String?).self)
        return UserAccount(name: name, created: Date(timeIntervalSince1970: created), discoverable: discoverable, disabled: disabled,
                           email: email)
    }

    // MARK: Web auth tokens

    package func insertWebAuthToken(_ token: WebAuthToken, container: String) async throws {
        // Tokens expired for a day are of no use to anyone: drop them as new ones arrive.
        var cleanup = PostgresStatement("DELETE FROM \(Self.schema).web_auth_tokens WHERE container = ")
        cleanup.sql += "\(cleanup.bind(container)) AND expires < \(cleanup.bind(token.created.timeIntervalSince1970 - 24 * 3600))"
        _ = try await rows(cleanup)
        var s = PostgresStatement("INSERT INTO \(Self.schema).web_auth_tokens (container, digest, account, created, expires, revoked) VALUES (")
        s.sql += [s.bind(container), s.bind(token.digest), s.bind(token.user), s.bind(token.created.timeIntervalSince1970),
                  s.bind(token.expires.timeIntervalSince1970), s.bind(token.revoked?.timeIntervalSince1970)].joined(separator: ", ") + ")"
        _ = try await rows(s)
    }

    package func webAuthToken(digest: String, container: String) async throws -> WebAuthToken? {
        try await cachedLookup(webAuthTokenCache, container: container, digest: digest) {
            var s = PostgresStatement("SELECT digest, account, created, expires, revoked FROM \(Self.schema).web_auth_tokens WHERE container = ")
            s.sql += "\(s.bind(container)) AND digest = \(s.bind(digest))"
            return try await self.rows(s).first.map { row in
                let (digest, user, created, expires, revoked) = try row.decode((String, String, Double, Double, Double?).self)
                return WebAuthToken(digest: digest, user: user, created: Date(timeIntervalSince1970: created),
                                    expires: Date(timeIntervalSince1970: expires), revoked: Self.date(revoked))
            }
        }
    }

    package func revokeWebAuthToken(digest: String, container: String, at date: Date) async throws -> Bool {
        var s = PostgresStatement("UPDATE \(Self.schema).web_auth_tokens SET revoked = ")
        s.sql += "\(s.bind(date.timeIntervalSince1970)) WHERE container = \(s.bind(container)) AND digest = \(s.bind(digest))"
        s.sql += " AND revoked IS NULL RETURNING 1"
        let revoked = try await rows(s).count > 0
        if revoked { await announceRevocation(container: container) }
        return revoked
    }

    package func revokeWebAuthTokens(user name: String, container: String, at date: Date) async throws -> Int {
        var s = PostgresStatement("UPDATE \(Self.schema).web_auth_tokens SET revoked = ")
        s.sql += "\(s.bind(date.timeIntervalSince1970)) WHERE container = \(s.bind(container)) AND account = \(s.bind(name))"
        s.sql += " AND revoked IS NULL RETURNING 1"
        let revoked = try await rows(s).count
        if revoked > 0 { await announceRevocation(container: container) }
        return revoked
    }

    // MARK: Server-to-server keys

    package func insertServerKey(_ key: ServerKey, container: String) async throws {
        var s = PostgresStatement("INSERT INTO \(Self.schema).server_keys (container, id, environment, public_key, name, created, revoked) VALUES (")
        s.sql += [s.bind(container), s.bind(key.id), s.bind(key.environment.rawValue), s.bind(key.publicKeyPEM), s.bind(key.name),
                  s.bind(key.created.timeIntervalSince1970), s.bind(key.revoked?.timeIntervalSince1970)].joined(separator: ", ") + ")"
        do {
            _ = try await rows(s)
        } catch let error as CloudError where error.code == .constraintViolation {
            throw CloudError(.constraintViolation, "That public key is registered already as \(key.id)")
        }
    }

    package func serverKey(id: String, container: String) async throws -> ServerKey? {
        var s = PostgresStatement("SELECT id, environment, public_key, name, created, revoked FROM \(Self.schema).server_keys WHERE container = ")
        s.sql += "\(s.bind(container)) AND id = \(s.bind(id))"
        return try await rows(s).first.map(Self.serverKey)
    }

    package func serverKeys(container: String) async throws -> [ServerKey] {
        var s = PostgresStatement("SELECT id, environment, public_key, name, created, revoked FROM \(Self.schema).server_keys WHERE container = ")
        s.sql += "\(s.bind(container)) ORDER BY created, id"
        return try await rows(s).map(Self.serverKey)
    }

    package func revokeServerKey(id: String, container: String, at date: Date) async throws -> Bool {
        try await revoke(table: "server_keys", key: "id", value: id, container: container, at: date)
    }

    private static func serverKey(_ row: PostgresRow) throws -> ServerKey {
        let (id, environment, key, name, created, revoked) = try row.decode((String, String, String, String?, Double, Double?).self)
        return ServerKey(id: id, environment: Container.Environment(rawValue: environment) ?? .development, publicKeyPEM: key,
                         name: name, created: Date(timeIntervalSince1970: created), revoked: date(revoked))
    }
}
