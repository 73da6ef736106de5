import Foundation
import LocalCloud
import PostgresNIO

extension PostgresStore {
    /// Gives vectors written before search as you type their segmented lexemes (weight B, see
    /// ``searchVector(_:_:)``), once per schema.
    ///
    /// The text the vectors were made from is not stored, so this reads each record's fields
    /// again (``rebuildSearch(type:schema:connection:logger:)``). The `search_segmented` row of
    /// `change_log_meta` is claimed in the same transaction: a node starting at the same time
    /// waits on it and then finds the work done, and a crash leaves it to the next start.
    package func addSegmentedSearchIfNeeded() async throws {
        let schema = schema
        let done = try await call { pool in
            try await !pool.rows("SELECT 1 FROM \(schema).change_log_meta WHERE key = 'search_segmented'").isEmpty
        }
        guard !done else { return }
        try await write { connection in
            let logger = self.pool.logger
            let claim = PostgresStatement("""
                INSERT INTO \(schema).change_log_meta (key, value) VALUES ('search_segmented', '1')
                ON CONFLICT (key) DO NOTHING RETURNING key
                """)
            guard try await !connection.rows(claim, logger: logger).isEmpty else { return }
            let types = try await connection.rows(PostgresStatement("SELECT DISTINCT record_type FROM \(schema).records WHERE search IS NOT NULL"),
                                                  logger: logger).map { try $0.decode(String.self) }
            let current = try await self.currentSchema(connection, logger: logger)
            for type in types {
                try await self.rebuildSearch(type: type, schema: current, connection: connection, logger: logger)
            }
        }
    }
}
