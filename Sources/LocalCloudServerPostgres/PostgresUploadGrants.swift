import Foundation
import LocalCloud
import LocalCloudServer
import Logging
import PostgresNIO

/// Upload URLs in PostgreSQL: any node redeems a grant another node issued, still exactly once
/// (the redeeming DELETE returns the row to one caller only).
final class PostgresUploadGrants: UploadGrantStore {
    let client: PostgresClient
    let logger: Logger

    init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    func issue(container: String, environment: Container.Environment) async throws -> String {
        let id = Self.newGrantID()
        let now = Date().timeIntervalSince1970
        let expires = now + Double(MemoryUploadGrants.lifetime.components.seconds)
        do {
            // Expired grants go as new ones come, so the table holds about an hour of uploads.
            try await client.query("DELETE FROM localcloud_upload_grants WHERE expires < \(now)", logger: logger)
            try await client.query("""
                INSERT INTO localcloud_upload_grants (id, container, environment, expires)
                VALUES (\(id), \(container), \(environment.rawValue), \(expires))
                """, logger: logger)
        } catch {
            throw PostgresFailure.cloudError(error, while: "issuing an upload URL")
        }
        return id
    }

    func redeem(_ id: String, container: String, environment: Container.Environment) async throws -> Bool {
        do {
            let rows = try await client.query("""
                DELETE FROM localcloud_upload_grants WHERE id = \(id) RETURNING container, environment, expires
                """, logger: logger)
            for try await (grantContainer, grantEnvironment, expires) in rows.decode((String, String, Double).self) {
                return grantContainer == container && grantEnvironment == environment.rawValue && expires > Date().timeIntervalSince1970
            }
            return false
        } catch {
            throw PostgresFailure.cloudError(error, while: "redeeming an upload URL")
        }
    }
}
