import Logging
import PostgresNIO

/// The tables of a node's server state (identity, upload grants, push), versioned and registered
/// like the record store's migrations, applied under an advisory lock so nodes starting together
/// do not race.
enum ServerStateMigrations {
    /// The advisory lock key: "LCSS" (LocalCloud server state), distinct from the record store's.
    static let lockKey: Int64 = 0x4C43_5353

    /// Each entry runs once, in order, in the transaction that records it.
    static let migrations: [(version: Int, name: String, sql: [PostgresQuery])] = [
        (1, "tokens, accounts, keys, upload grants and push state", [
            """
            CREATE TABLE localcloud_api_tokens (
                container text NOT NULL, digest text NOT NULL, environment text NOT NULL, name text,
                created double precision NOT NULL, revoked double precision,
                PRIMARY KEY (container, digest))
            """,
            """
            CREATE TABLE localcloud_users (
                container text NOT NULL, name text NOT NULL, password_hash text NOT NULL,
                discoverable boolean NOT NULL DEFAULT true, created double precision NOT NULL,
                PRIMARY KEY (container, name))
            """,
            """
            CREATE TABLE localcloud_web_auth_tokens (
                container text NOT NULL, digest text NOT NULL, user_name text NOT NULL,
                created double precision NOT NULL, expires double precision NOT NULL, revoked double precision,
                PRIMARY KEY (container, digest),
                FOREIGN KEY (container, user_name) REFERENCES localcloud_users (container, name) ON DELETE CASCADE)
            """,
            "CREATE INDEX localcloud_web_auth_tokens_user ON localcloud_web_auth_tokens (container, user_name) WHERE revoked IS NULL",
            """
            CREATE TABLE localcloud_server_keys (
                container text NOT NULL, id text NOT NULL, environment text NOT NULL, public_key text NOT NULL,
                name text, created double precision NOT NULL, revoked double precision,
                PRIMARY KEY (container, id))
            """,
            """
            CREATE TABLE localcloud_upload_grants (
                id text PRIMARY KEY, container text NOT NULL, environment text NOT NULL, expires double precision NOT NULL)
            """,
            "CREATE INDEX localcloud_upload_grants_expires ON localcloud_upload_grants (expires)",
            "CREATE TABLE localcloud_server_secrets (name text PRIMARY KEY, value bytea NOT NULL)",
            """
            CREATE TABLE localcloud_webcourier_cursors (
                token_hash text PRIMARY KEY, cursor text NOT NULL, updated_at double precision NOT NULL)
            """,
        ]),
    ]

    static var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Brings the tables to ``latestVersion``.
    /// - Throws: `CloudError(.incompatibleVersion)` when the database is newer than this binary.
    static func migrate(_ client: PostgresClient, logger: Logger) async throws {
        try await client.withConnection { connection in
            // A session lock: migrations commit one by one, and the lock must outlive each transaction.
            try await connection.query("SELECT pg_advisory_lock(\(lockKey))", logger: logger)
            do {
                try await apply(on: connection, logger: logger)
                try await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
                throw error
            }
        }
    }

    private static func apply(on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("""
            CREATE TABLE IF NOT EXISTS localcloud_server_migrations (
                version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
            """, logger: logger)
        var current = 0
        for try await version in try await connection.query(
            "SELECT COALESCE(MAX(version), 0) FROM localcloud_server_migrations", logger: logger).decode(Int.self) {
            current = version
        }
        guard current <= latestVersion else {
            throw PostgresFailure.newerSchema(current, known: latestVersion, what: "server state")
        }
        for migration in migrations where migration.version > current {
            try await connection.query("BEGIN", logger: logger)
            do {
                for statement in migration.sql { try await connection.query(statement, logger: logger) }
                try await connection.query(
                    "INSERT INTO localcloud_server_migrations (version, name) VALUES (\(migration.version), \(migration.name))", logger: logger)
                try await connection.query("COMMIT", logger: logger)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }
}
