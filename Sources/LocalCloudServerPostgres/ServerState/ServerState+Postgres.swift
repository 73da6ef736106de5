import Crypto
import Foundation
import LocalCloud
import LocalCloudPostgres
import LocalCloudServer
import PostgresNIO
import Synchronization

extension ServerState {
    /// Accounts, tokens, upload URLs and push state in the database every node shares, so no
    /// client depends on reaching the node that issued its token, upload URL or push token.
    ///
    /// ```swift
    /// let state = try await ServerState.postgres(url: try PostgresURL("postgresql://lc@db/foodpin"))
    /// let server = CloudServer.open(configuration: configuration, logger: logger, state: state)
    /// ```
    ///
    /// Their tables are created or migrated here, before the node takes requests: a migration
    /// holds the database's migration lock, and must never wait on a request handler's thread.
    package static func postgres(url: PostgresURL) async throws -> ServerState {
        let tables = PostgresServerTables(pool: PostgresStore.pool(for: url))
        let identity = PostgresIdentityStore(url: url)
        try await identity.prepare()
        _ = try await tables.readyPool()
        let console = PostgresConsoleStore(url: url)
        try await console.prepare()
        return ServerState(identity: identity, uploads: PostgresUploadGrants(tables: tables),
                           push: { try await tables.pushTokens() }, console: console, requestLog: console)
    }
}

/// The server-state tables (schema `localcloud_server`), migrated on first use by whichever node
/// gets there first (the migrator's lock serializes them).
final class PostgresServerTables: Sendable {
    static let schema = "localcloud_server"
    let pool: PostgresPool
    private let migrated = Mutex(false)
    private let push = Mutex<PushTokens?>(nil)

    init(pool: PostgresPool) {
        self.pool = pool
    }

    static var migrator: PostgresMigrator {
        let s = schema
        var migrator = PostgresMigrator(schema: s)
        migrator.register(1, "upload grants, the push key, webcourier cursors", [
            "CREATE TABLE \(s).upload_grants (id text PRIMARY KEY, container text NOT NULL, environment text NOT NULL, expires double precision NOT NULL)",
            "CREATE INDEX upload_grants_by_expiry ON \(s).upload_grants (expires)",
            "CREATE TABLE \(s).secrets (name text PRIMARY KEY, value bytea NOT NULL)",
            "CREATE TABLE \(s).webcourier_cursors (token_hash text PRIMARY KEY, cursor text NOT NULL, updated_at double precision NOT NULL)",
        ])
        return migrator
    }

    /// The pool, once the tables exist.
    func readyPool() async throws -> PostgresPool {
        if !migrated.withLock({ $0 }) {
            do {
                try await Self.migrator.migrate(pool)
            } catch {
                throw PostgresPool.cloudError(error)
            }
            migrated.withLock { $0 = true }
        }
        return pool
    }

    /// The push tokens' key, made once per database (the first node inserts it, every node reads
    /// the same one), then kept in memory.
    func pushTokens() async throws -> PushTokens {
        if let tokens = push.withLock({ $0 }) { return tokens }
        let fresh = Data((0..<32).map { _ in UInt8.random(in: .min ... .max) })
        let key: Data
        do {
            let logger = pool.logger
            key = try await readyPool().withConnection { connection in
                try await connection.query("""
                    INSERT INTO localcloud_server.secrets (name, value) VALUES ('push-token-key', \(fresh)) ON CONFLICT (name) DO NOTHING
                    """, logger: logger)
                var key = Data()
                for try await bytes in try await connection.query(
                    "SELECT value FROM localcloud_server.secrets WHERE name = 'push-token-key'", logger: logger).decode(Data.self) {
                    key = bytes
                }
                return key
            }
        } catch {
            throw PostgresPool.cloudError(error)
        }
        guard key.count == 32 else { throw CloudError(.internalError, "The push token key in the database is damaged") }
        let tokens = PushTokens(key: SymmetricKey(data: key), cursors: PostgresWebcourierCursors(tables: self))
        push.withLock { $0 = tokens }
        return tokens
    }
}
