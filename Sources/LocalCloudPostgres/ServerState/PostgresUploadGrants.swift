import Foundation
import LocalCloud
import LocalCloudServer
import PostgresNIO

/// Upload URLs in PostgreSQL: any node redeems a grant another node issued, still exactly once
/// (the redeeming DELETE returns the row to one caller only).
final class PostgresUploadGrants: UploadGrantStore {
    let tables: PostgresServerTables

    init(tables: PostgresServerTables) {
        self.tables = tables
    }

    func issue(container: String, environment: Container.Environment) async throws -> String {
        let id = Self.newGrantID()
        let now = Date().timeIntervalSince1970
        let expires = now + Double(MemoryUploadGrants.lifetime.components.seconds)
        do {
            let client = try await tables.client()
            // Expired grants go as new ones come, so the table holds about an hour of uploads.
            try await client.query("DELETE FROM localcloud_server.upload_grants WHERE expires < \(now)", logger: tables.pool.logger)
            try await client.query("""
                INSERT INTO localcloud_server.upload_grants (id, container, environment, expires)
                VALUES (\(id), \(container), \(environment.rawValue), \(expires))
                """, logger: tables.pool.logger)
        } catch {
            throw PostgresPool.cloudError(error)
        }
        return id
    }

    func redeem(_ id: String, container: String, environment: Container.Environment) async throws -> Bool {
        do {
            let rows = try await tables.client().query("""
                DELETE FROM localcloud_server.upload_grants WHERE id = \(id) RETURNING container, environment, expires
                """, logger: tables.pool.logger)
            for try await (grantContainer, grantEnvironment, expires) in rows.decode((String, String, Double).self) {
                return grantContainer == container && grantEnvironment == environment.rawValue && expires > Date().timeIntervalSince1970
            }
            return false
        } catch {
            throw PostgresPool.cloudError(error)
        }
    }
}
