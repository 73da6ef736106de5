import Foundation
import LocalCloud
import PostgresNIO

/// Registered, versioned schema migrations for one PostgreSQL schema, like GRDB's `DatabaseMigrator`.
///
/// ```swift
/// var migrator = PostgresMigrator(schema: "lc_icloud_foodpin_development_1a2b3c4d")
/// migrator.register(1, "records, zones, change log") { ["CREATE TABLE …"] }
/// try await migrator.migrate(pool)
/// ```
///
/// Versions live in `<schema>.schema_migrations`. Each migration runs in its own transaction with
/// its version row, so a crash leaves the database at a version, never between two. A session
/// advisory lock serializes nodes starting at once (one key for every LocalCloud schema of the
/// database, since migrations also create shared extensions): the second waits, then finds the work done. A database at a version this binary does not know is refused.
package struct PostgresMigrator: Sendable {
    package struct Migration: Sendable {
        var version: Int
        var name: String
        var statements: [String]
    }

    package let schema: String
    private(set) var migrations: [Migration] = []

    package init(schema: String) {
        self.schema = schema
    }

    /// Registers the next migration; versions must increase.
    package mutating func register(_ version: Int, _ name: String, _ statements: [String]) {
        precondition(migrations.last.map { $0.version < version } ?? true, "Migrations must be registered in version order")
        migrations.append(Migration(version: version, name: name, statements: statements))
    }

    package var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Applies every migration the database lacks; returns the versions applied.
    ///
    /// - Throws: `CloudError(.incompatibleVersion)` when the database is newer than this binary.
    @discardableResult
    package func migrate(_ pool: PostgresPool) async throws -> [Int] {
        try await run(pool)
    }

    private func run(_ pool: PostgresPool) async throws -> [Int] {
        let logger = pool.logger
        let schema = schema
        let migrations = migrations
        let latest = latestVersion
        return try await pool.withConnection { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "SELECT pg_advisory_lock(\(Self.lockKey))"), logger: logger)
            do {
                try await connection.query(PostgresQuery(unsafeSQL: """
                    CREATE SCHEMA IF NOT EXISTS \(schema);
                    """), logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: """
                    CREATE TABLE IF NOT EXISTS \(schema).schema_migrations (
                        version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                    """), logger: logger)
                let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT coalesce(max(version), 0) FROM \(schema).schema_migrations"),
                                                      logger: logger)
                var current = 0
                for try await (version) in rows.decode(Int.self) { current = version }
                if current > latest {
                    throw CloudError(.incompatibleVersion, """
                        The database schema \(schema) is at version \(current), newer than this localcloud knows (\(latest)); \
                        upgrade localcloud to use it
                        """)
                }
                var applied: [Int] = []
                for migration in migrations where migration.version > current {
                    try await connection.query("BEGIN", logger: logger)
                    do {
                        for statement in migration.statements {
                            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                        }
                        try await connection.query(PostgresQuery(
                            unsafeSQL: "INSERT INTO \(schema).schema_migrations (version, name) VALUES ($1, $2)",
                            binds: Self.binds(migration.version, migration.name)), logger: logger)
                        try await connection.query("COMMIT", logger: logger)
                    } catch {
                        _ = try? await connection.query("ROLLBACK", logger: logger)
                        throw error
                    }
                    applied.append(migration.version)
                }
                _ = try? await connection.query(PostgresQuery(unsafeSQL: "SELECT pg_advisory_unlock(\(Self.lockKey))"), logger: logger)
                return applied
            } catch {
                _ = try? await connection.query(PostgresQuery(unsafeSQL: "SELECT pg_advisory_unlock(\(Self.lockKey))"), logger: logger)
                throw error
            }
        }
    }

    /// The advisory lock migrations hold: "LCMIGRAT" in ASCII, apart from other applications' keys.
    static let lockKey: Int64 = 0x4C43_4D49_4752_4154

    private static func binds(_ version: Int, _ name: String) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(version)
        binds.append(name)
        return binds
    }
}
