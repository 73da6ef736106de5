import Foundation
import LocalCloud
import LocalCloudPostgres
import LocalCloudServer
import PostgresNIO

/// Where each push token's long poll stopped, in PostgreSQL, so a token's next poll may reach any
/// node. Keyed by the token's SHA-256, never the token.
final class PostgresWebcourierCursors: WebcourierCursorStore {
    let tables: PostgresServerTables

    init(tables: PostgresServerTables) {
        self.tables = tables
    }

    func cursor(for token: String) async throws -> NotificationCursor? {
        do {
            let logger = tables.pool.logger
            let hash = Self.hash(token)
            let text = try await tables.readyPool().withConnection { connection -> String? in
                let rows = try await connection.query("""
                    SELECT cursor FROM localcloud_server.webcourier_cursors WHERE token_hash = \(hash)
                    """, logger: logger)
                for try await text in rows.decode(String.self) { return text }
                return nil
            }
            return text.flatMap(NotificationCursor.init(text:))
        } catch {
            throw PostgresPool.cloudError(error)
        }
    }

    func set(_ cursor: NotificationCursor, for token: String) async throws {
        do {
            let logger = tables.pool.logger
            let (hash, text, now) = (Self.hash(token), cursor.description, Date().timeIntervalSince1970)
            _ = try await tables.readyPool().withConnection { connection in
                try await connection.query("""
                    INSERT INTO localcloud_server.webcourier_cursors (token_hash, cursor, updated_at)
                    VALUES (\(hash), \(text), \(now))
                    ON CONFLICT (token_hash) DO UPDATE SET cursor = EXCLUDED.cursor, updated_at = EXCLUDED.updated_at
                    """, logger: logger).collect().count
            }
        } catch {
            throw PostgresPool.cloudError(error)
        }
    }

    private static func hash(_ token: String) -> String {
        SHA256Hasher.hexDigest(of: token)
    }
}
