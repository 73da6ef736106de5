import Foundation
import LocalCloud
import LocalCloudPostgres
import LocalCloudServer
import PostgresNIO
import Synchronization

/// The console's administrators, sessions and audit log in PostgreSQL (schema
/// `localcloud_console`), shared by every node: a session ended on one node is refused by all.
package final class PostgresConsoleStore: ConsoleStore {
    static let schema = "localcloud_console"
    private let pool: PostgresPool
    private let migrated = Mutex(false)

    package init(url: PostgresURL) {
        pool = PostgresStore.pool(for: url)
    }

    static var migrator: PostgresMigrator {
        let s = schema
        var migrator = PostgresMigrator(schema: s)
        migrator.register(1, "console administrators, sessions, audit log", [
            "CREATE TABLE \(s).admins (name text PRIMARY KEY, password_hash text NOT NULL, created double precision NOT NULL)",
            """
            CREATE TABLE \(s).sessions (digest text PRIMARY KEY, admin text NOT NULL REFERENCES \(s).admins(name) ON DELETE CASCADE,
                created double precision NOT NULL, expires double precision NOT NULL, ended double precision)
            """,
            """
            CREATE TABLE \(s).audit (id bigserial PRIMARY KEY, time double precision NOT NULL, admin text NOT NULL,
                action text NOT NULL, detail text NOT NULL)
            """,
        ])
        migrator.register(2, "the cluster's request log and telemetry minutes, per node", [
            """
            CREATE TABLE \(s).requests (id bigserial PRIMARY KEY, node text NOT NULL, time double precision NOT NULL,
                method text NOT NULL, path text NOT NULL, status integer NOT NULL, ms double precision NOT NULL,
                "user" text, code text)
            """,
            "CREATE INDEX requests_by_time ON \(s).requests (time)",
            """
            CREATE TABLE \(s).minutes (node text NOT NULL, minute bigint NOT NULL, requests integer NOT NULL,
                errors text NOT NULL, latencies double precision[] NOT NULL, streams integer NOT NULL, PRIMARY KEY (node, minute))
            """,
            "CREATE TABLE \(s).nodes (node text PRIMARY KEY, open_streams integer NOT NULL, updated double precision NOT NULL)",
        ])
        return migrator
    }

    /// Creates or migrates the tables now, so no request waits on a migration.
    package func prepare() async throws {
        _ = try await ready()
    }

    private func ready() async throws -> PostgresPool {
        if migrated.withLock({ $0 }) { return pool }
        do {
            try await Self.migrator.migrate(pool)
        } catch {
            throw PostgresPool.cloudError(error)
        }
        migrated.withLock { $0 = true }
        return pool
    }

    func rows(_ statement: PostgresStatement) async throws -> [PostgresRow] {
        do {
            return try await ready().rows(statement.sql, statement.binds)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw CloudError(.constraintViolation, "It exists already", cause: error)
        } catch let error as CloudError {
            throw error
        } catch {
            throw PostgresPool.cloudError(error)
        }
    }

    // MARK: Administrators

    package func insertAdmin(_ admin: ConsoleAdmin, passwordHash: String) async throws {
        var s = PostgresStatement("INSERT INTO \(Self.schema).admins (name, password_hash, created) VALUES (")
        s.sql += [s.bind(admin.name), s.bind(passwordHash), s.bind(admin.created.timeIntervalSince1970)].joined(separator: ", ") + ")"
        do {
            _ = try await rows(s)
        } catch let error as CloudError where error.code == .constraintViolation {
            throw CloudError(.constraintViolation, "Administrator '\(admin.name)' exists already")
        }
    }

    package func admins() async throws -> [ConsoleAdmin] {
        let s = PostgresStatement("SELECT name, created FROM \(Self.schema).admins ORDER BY name")
        return try await rows(s).map { row in
            let (name, created) = try row.decode((String, Double).self)
            return ConsoleAdmin(name: name, created: Date(timeIntervalSince1970: created))
        }
    }

    package func adminPasswordHash(_ name: String) async throws -> String? {
        var s = PostgresStatement("SELECT password_hash FROM \(Self.schema).admins WHERE name = ")
        s.sql += s.bind(name)
        return try await rows(s).first?.decode(String.self)
    }

    package func deleteAdmin(_ name: String) async throws -> Bool {
        var s = PostgresStatement("DELETE FROM \(Self.schema).admins WHERE name = ")
        s.sql += s.bind(name) + " RETURNING 1"
        return try await !rows(s).isEmpty
    }

    // MARK: Sessions

    package func insertSession(_ session: ConsoleSession) async throws {
        var cleanup = PostgresStatement("DELETE FROM \(Self.schema).sessions WHERE expires < ")
        cleanup.sql += cleanup.bind(session.created.timeIntervalSince1970 - 86_400)
        _ = try await rows(cleanup)
        var s = PostgresStatement("INSERT INTO \(Self.schema).sessions (digest, admin, created, expires, ended) VALUES (")
        s.sql += [s.bind(session.digest), s.bind(session.admin), s.bind(session.created.timeIntervalSince1970),
                  s.bind(session.expires.timeIntervalSince1970), s.bind(session.ended?.timeIntervalSince1970)].joined(separator: ", ") + ")"
        _ = try await rows(s)
    }

    package func session(digest: String) async throws -> ConsoleSession? {
        var s = PostgresStatement("SELECT digest, admin, created, expires, ended FROM \(Self.schema).sessions WHERE digest = ")
        s.sql += s.bind(digest)
        return try await rows(s).first.map { row in
            let (digest, admin, created, expires, ended) = try row.decode((String, String, Double, Double, Double?).self)
            return ConsoleSession(digest: digest, admin: admin, created: Date(timeIntervalSince1970: created),
                                  expires: Date(timeIntervalSince1970: expires), ended: ended.map(Date.init(timeIntervalSince1970:)))
        }
    }

    package func endSession(digest: String, at date: Date) async throws {
        var s = PostgresStatement("UPDATE \(Self.schema).sessions SET ended = ")
        s.sql += "\(s.bind(date.timeIntervalSince1970)) WHERE digest = \(s.bind(digest)) AND ended IS NULL"
        _ = try await rows(s)
    }

    // MARK: Audit log

    package func appendAudit(_ entry: AuditEntry) async throws {
        var s = PostgresStatement("INSERT INTO \(Self.schema).audit (time, admin, action, detail) VALUES (")
        s.sql += [s.bind(entry.time.timeIntervalSince1970), s.bind(entry.admin), s.bind(entry.action),
                  s.bind(entry.detail)].joined(separator: ", ") + ")"
        _ = try await rows(s)
    }

    package func auditEntries(limit: Int) async throws -> [AuditEntry] {
        var s = PostgresStatement("SELECT time, admin, action, detail FROM \(Self.schema).audit ORDER BY id DESC LIMIT ")
        s.sql += s.bind(Int64(limit))
        return try await rows(s).map { row in
            let (time, admin, action, detail) = try row.decode((Double, String, String, String).self)
            return AuditEntry(time: Date(timeIntervalSince1970: time), admin: admin, action: action, detail: detail)
        }
    }
}
