import Foundation
import GRDB
import LocalCloud
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The identity store of a data directory: `<dataDir>/<container>/identity.sqlite` per container
/// (WAL, registered migrations), opened on first use and kept open.
///
/// The server and the console open the same files: a token the console revokes is refused by a
/// running server on its next request, since nothing is cached.
package final class SQLiteIdentityStore: IdentityStore {
    package let dataDirectory: URL
    private let pools = Mutex<[String: DatabasePool]>([:])
    package let credentialChanges = CredentialChanges()
    /// Hears the console's and other processes' writes to the identity files; made on first use.
    private let directoryWatch = Mutex<DirectoryWatch?>(nil)

    package init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
    }

    /// Watches `<dataDir>/<container>/` for writes to `identity.sqlite` and its WAL by any process
    /// (this one's included, which costs one spurious recheck per write).
    package func watchCredentialChanges(container: String) {
        guard let url = try? fileURL(container: container) else { return }
        let changes = credentialChanges
        let watch = directoryWatch.withLock { watch -> DirectoryWatch? in
            if watch == nil { watch = DirectoryWatch(namePrefix: "identity.sqlite") { changes.fire() } }
            return watch
        }
        watch?.add(directory: url.deletingLastPathComponent())
    }

    /// `<dataDir>/<container>/identity.sqlite`
    package func fileURL(container: String) throws -> URL {
        try StoreRegistry.validate(containerIdentifier: container)
        return dataDirectory.appendingPathComponent(container, isDirectory: true).appendingPathComponent("identity.sqlite")
    }

    /// The container's database, created when `create` (writes); `nil` when it does not exist and
    /// `create` is false, so requests naming random containers leave nothing behind.
    private func pool(_ container: String, create: Bool) throws -> DatabasePool? {
        let url = try fileURL(container: container)
        return try pools.withLock { pools in
            if let pool = pools[container] { return pool }
            guard create || FileManager.default.fileExists(atPath: url.path) else { return nil }
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            var config = Configuration()
            config.busyMode = .timeout(30)
            config.label = "LocalCloud identity"
            config.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                try db.execute(sql: "PRAGMA foreign_keys = ON")
            }
            let pool = try DatabasePool(path: url.path, configuration: config)
            // The console and a running server may open a new file at once: migrate under a file lock.
            try FileLock.withExclusiveLock(url.appendingPathExtension("migrate-lock"), mode: 0o600) {
                try Self.migrator.migrate(pool)
            }
            pools[container] = pool
            return pool
        }
    }

    private func write<T: Sendable>(_ container: String, _ body: @escaping @Sendable (GRDB.Database) throws -> T) async throws -> T {
        guard let pool = try pool(container, create: true) else {
            throw CloudError(.internalError, "Cannot open the identity database of \(container)")
        }
        let result = try await pool.write(body)
        // Any write may end a credential (revoked, signed out, disabled): push sessions recheck.
        credentialChanges.fire()
        return result
    }

    /// Reads; `empty` when the container has no identity database yet.
    private func read<T: Sendable>(_ container: String, empty: T, _ body: @escaping @Sendable (GRDB.Database) throws -> T) async throws -> T {
        guard let pool = try pool(container, create: false) else { return empty }
        return try await pool.read(body)
    }

    /// What the authenticator looks up on every request, kept while the file is unchanged.
    let apiTokenCache = IdentityLookupCache<APIToken>()
    let webAuthTokenCache = IdentityLookupCache<WebAuthToken>()
    let serverKeyCache = IdentityLookupCache<ServerKey>()

    /// A lookup by digest through `cache`: the stamp is taken before the read, so a commit that
    /// lands meanwhile leaves the entry stale.
    private func cachedLookup<T: Sendable>(_ cache: IdentityLookupCache<T>, container: String, key: String,
                                           _ body: @escaping @Sendable (GRDB.Database) throws -> T?) async throws -> T? {
        let url = try fileURL(container: container)
        let cacheKey = container + "\u{0}" + key
        let stamp = IdentityLookupCache<T>.stamp(url)
        if let stamp, let row = cache.row(cacheKey, stamp: stamp) { return row }
        let row = try await read(container, empty: nil, body)
        if let stamp, let row { cache.store(cacheKey, stamp: stamp, row: row) }
        return row
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: tokens, accounts and keys") { db in
            try db.execute(sql: """
                CREATE TABLE apiToken (
                    digest TEXT PRIMARY KEY NOT NULL,
                    environment TEXT NOT NULL,
                    name TEXT,
                    created REAL NOT NULL,
                    revoked REAL
                );
                CREATE TABLE account (
                    name TEXT PRIMARY KEY NOT NULL,
                    passwordHash TEXT NOT NULL,
                    discoverable INTEGER NOT NULL DEFAULT 1,
                    created REAL NOT NULL
                );
                CREATE TABLE webAuthToken (
                    digest TEXT PRIMARY KEY NOT NULL,
                    account TEXT NOT NULL REFERENCES account(name) ON DELETE CASCADE,
                    created REAL NOT NULL,
                    expires REAL NOT NULL,
                    revoked REAL
                );
                CREATE INDEX webAuthToken_account ON webAuthToken(account, revoked);
                CREATE TABLE serverKey (
                    id TEXT PRIMARY KEY NOT NULL,
                    environment TEXT NOT NULL,
                    publicKey TEXT NOT NULL,
                    name TEXT,
                    created REAL NOT NULL,
                    revoked REAL
                );
                """)
        }
        migrator.registerMigration("v2: disabled accounts") { db in
            try db.execute(sql: "ALTER TABLE account ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v3: account email addresses") { db in
            try db.execute(sql: "ALTER TABLE account ADD COLUMN email TEXT")
        }
        return migrator
    }


    // MARK: API tokens

    package func insertAPIToken(_ token: APIToken, container: String) async throws {
        try await write(container) { db in
            try db.execute(sql: "INSERT INTO apiToken (digest, environment, name, created, revoked) VALUES (?, ?, ?, ?, ?)",
                           arguments: [token.digest, token.environment.rawValue, token.name,
                                       token.created.timeIntervalSince1970, token.revoked?.timeIntervalSince1970])
        }
    }

    package func apiToken(digest: String, container: String) async throws -> APIToken? {
        try await cachedLookup(apiTokenCache, container: container, key: digest) { db in
            try Row.fetchOne(db, sql: "SELECT * FROM apiToken WHERE digest = ?", arguments: [digest]).map(Self.apiToken)
        }
    }

    package func apiTokens(container: String) async throws -> [APIToken] {
        try await read(container, empty: []) { db in
            try Row.fetchAll(db, sql: "SELECT * FROM apiToken ORDER BY created, digest").map(Self.apiToken)
        }
    }

    package func revokeAPIToken(digest: String, container: String, at date: Date) async throws -> Bool {
        try await revoke(table: "apiToken", key: "digest", value: digest, container: container, at: date)
    }

    /// Marks one live row of `table` revoked; `table` and `key` are this file's constants, never input.
    private func revoke(table: String, key: String, value: String, container: String, at date: Date) async throws -> Bool {
        try await write(container) { db in
            try db.execute(sql: "UPDATE \(table) SET revoked = ? WHERE \(key) = ? AND revoked IS NULL",
                           arguments: [date.timeIntervalSince1970, value])
            return db.changesCount > 0
        }
    }

    private static func apiToken(_ row: Row) -> APIToken {
        APIToken(digest: row["digest"], environment: Container.Environment(rawValue: row["environment"]) ?? .development,
                 name: row["name"], created: Date(timeIntervalSince1970: row["created"]),
                 revoked: (row["revoked"] as Double?).map(Date.init(timeIntervalSince1970:)))
    }

    // MARK: Accounts

    package func insertUser(_ user: UserAccount, passwordHash: String, container: String) async throws {
        do {
            try await write(container) { db in
                try db.execute(sql: "INSERT INTO account (name, passwordHash, discoverable, created, email) VALUES (?, ?, ?, ?, ?)",
                               arguments: [user.name, passwordHash, user.discoverable, user.created.timeIntervalSince1970, user.email])
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw CloudError(.constraintViolation, "User '\(user.name)' exists already")
        }
    }

    package func user(named name: String, container: String) async throws -> UserAccount? {
        try await read(container, empty: nil) { db in
            try Row.fetchOne(db, sql: "SELECT * FROM account WHERE name = ?", arguments: [name]).map(Self.account)
        }
    }

    package func passwordHash(user name: String, container: String) async throws -> String? {
        try await read(container, empty: nil) { db in
            try String.fetchOne(db, sql: "SELECT passwordHash FROM account WHERE name = ? AND disabled = 0", arguments: [name])
        }
    }

    package func updatePasswordHash(_ hash: String, user name: String, container: String) async throws -> Bool {
        try await write(container) { db in
            try db.execute(sql: "UPDATE account SET passwordHash = ? WHERE name = ?", arguments: [hash, name])
            return db.changesCount > 0
        }
    }

    package func setDisabled(_ disabled: Bool, user name: String, container: String) async throws -> Bool {
        try await write(container) { db in
            try db.execute(sql: "UPDATE account SET disabled = ? WHERE name = ?", arguments: [disabled, name])
            return db.changesCount > 0
        }
    }

    package func users(container: String) async throws -> [UserAccount] {
        try await read(container, empty: []) { db in
            try Row.fetchAll(db, sql: "SELECT * FROM account ORDER BY name").map(Self.account)
        }
    }

    private static func account(_ row: Row) -> UserAccount {
        UserAccount(name: row["name"], created: Date(timeIntervalSince1970: row["created"]), discoverable: row["discoverable"],
                    disabled: row["disabled"], email: row["email"])
    }

    // MARK: Web auth tokens

    package func insertWebAuthToken(_ token: WebAuthToken, container: String) async throws {
        try await write(container) { db in
            // Tokens expired for a day are of no use to anyone: drop them as new ones arrive.
            try db.execute(sql: "DELETE FROM webAuthToken WHERE expires < ?",
                           arguments: [token.created.timeIntervalSince1970 - 24 * 3600])
            try db.execute(sql: "INSERT INTO webAuthToken (digest, account, created, expires, revoked) VALUES (?, ?, ?, ?, ?)",
                           arguments: [token.digest, token.user, token.created.timeIntervalSince1970,
                                       token.expires.timeIntervalSince1970, token.revoked?.timeIntervalSince1970])
        }
    }

    package func webAuthToken(digest: String, container: String) async throws -> WebAuthToken? {
        try await cachedLookup(webAuthTokenCache, container: container, key: digest) { db in
            try Row.fetchOne(db, sql: "SELECT * FROM webAuthToken WHERE digest = ?", arguments: [digest]).map { row in
                WebAuthToken(digest: row["digest"], user: row["account"], created: Date(timeIntervalSince1970: row["created"]),
                             expires: Date(timeIntervalSince1970: row["expires"]),
                             revoked: (row["revoked"] as Double?).map(Date.init(timeIntervalSince1970:)))
            }
        }
    }

    package func revokeWebAuthToken(digest: String, container: String, at date: Date) async throws -> Bool {
        try await revoke(table: "webAuthToken", key: "digest", value: digest, container: container, at: date)
    }

    package func revokeWebAuthTokens(user name: String, container: String, at date: Date) async throws -> Int {
        try await write(container) { db in
            try db.execute(sql: "UPDATE webAuthToken SET revoked = ? WHERE account = ? AND revoked IS NULL",
                           arguments: [date.timeIntervalSince1970, name])
            return db.changesCount
        }
    }

    // MARK: Server-to-server keys

    package func insertServerKey(_ key: ServerKey, container: String) async throws {
        do {
            try await write(container) { db in
                try db.execute(sql: "INSERT INTO serverKey (id, environment, publicKey, name, created, revoked) VALUES (?, ?, ?, ?, ?, ?)",
                               arguments: [key.id, key.environment.rawValue, key.publicKeyPEM, key.name,
                                           key.created.timeIntervalSince1970, key.revoked?.timeIntervalSince1970])
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw CloudError(.constraintViolation, "That public key is registered already as \(key.id)")
        }
    }

    package func serverKey(id: String, container: String) async throws -> ServerKey? {
        try await cachedLookup(serverKeyCache, container: container, key: id) { db in
            try Row.fetchOne(db, sql: "SELECT * FROM serverKey WHERE id = ?", arguments: [id]).map(Self.serverKey)
        }
    }

    package func serverKeys(container: String) async throws -> [ServerKey] {
        try await read(container, empty: []) { db in
            try Row.fetchAll(db, sql: "SELECT * FROM serverKey ORDER BY created, id").map(Self.serverKey)
        }
    }

    package func revokeServerKey(id: String, container: String, at date: Date) async throws -> Bool {
        try await revoke(table: "serverKey", key: "id", value: id, container: container, at: date)
    }

    private static func serverKey(_ row: Row) -> ServerKey {
        ServerKey(id: row["id"], environment: Container.Environment(rawValue: row["environment"]) ?? .development,
                  publicKeyPEM: row["publicKey"], name: row["name"], created: Date(timeIntervalSince1970: row["created"]),
                  revoked: (row["revoked"] as Double?).map(Date.init(timeIntervalSince1970:)))
    }
}
