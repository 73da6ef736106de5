import Crypto
import Foundation
import LocalCloudServer
import Logging
import PostgresNIO

/// Where each push token's long poll stopped, in PostgreSQL, so a token's next poll may reach any
/// node. Keyed by the token's SHA-256, never the token.
final class PostgresWebcourierCursors: WebcourierCursorStore {
    let client: PostgresClient
    let logger: Logger

    init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    func cursor(for token: String) async throws -> NotificationCursor? {
        do {
            let rows = try await client.query("""
                SELECT cursor FROM localcloud_webcourier_cursors WHERE token_hash = \(Self.hash(token))
                """, logger: logger)
            for try await text in rows.decode(String.self) { return NotificationCursor(text: text) }
            return nil
        } catch {
            throw PostgresFailure.cloudError(error, while: "reading a push cursor")
        }
    }

    func set(_ cursor: NotificationCursor, for token: String) async throws {
        do {
            try await client.query("""
                INSERT INTO localcloud_webcourier_cursors (token_hash, cursor, updated_at)
                VALUES (\(Self.hash(token)), \(cursor.description), \(Date().timeIntervalSince1970))
                ON CONFLICT (token_hash) DO UPDATE SET cursor = EXCLUDED.cursor, updated_at = EXCLUDED.updated_at
                """, logger: logger)
        } catch {
            throw PostgresFailure.cloudError(error, while: "saving a push cursor")
        }
    }

    private static func hash(_ token: String) -> String {
        SHA256.hash(data: Array(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
