import Foundation
import LocalCloud
import LocalCloudPostgres
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
            let logger = tables.pool.logger
            _ = try await tables.readyPool().withConnection { connection in
                // Expired grants go as new ones come, so the table holds about an hour of uploads.
                try await connection.query("DELETE FROM localcloud_server.upload_grants WHERE expires < \(now)", logger: logger)
                return try await connection.query("""
                    INSERT INTO localcloud_server.upload_grants (id, container, environment, expires)
                    VALUES (\(id), \(container), \(environment.rawValue), \(expires))
                    """, logger: logger).collect().count
            }
        } catch {
            throw PostgresPool.cloudError(error)
        }
        return id
    }

    func redeem(_ id: String, container: String, environment: Container.Environment) async throws -> Bool {
        do {
            let logger = tables.pool.logger
            return try await tables.readyPool().withConnection { connection in
                let rows = try await connection.query("""
                    DELETE FROM localcloud_server.upload_grants WHERE id = \(id) RETURNING container, environment, expires
                    """, logger: logger)
                for try await (grantContainer, grantEnvironment, expires) in rows.decode((String, String, Double).self) {
                    return grantContainer == container && grantEnvironment == environment.rawValue && expires > Date().timeIntervalSince1970
                }
                return false
            }
        } catch {
            throw PostgresPool.cloudError(error)
        }
    }
}
