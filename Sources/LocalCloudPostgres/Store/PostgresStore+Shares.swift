import LocalCloud
import PostgresNIO

extension PostgresStore: ShareCatalog {
    /// Every share of every user's private database, for the sharing layer's rules.
    package func storedShares() async throws -> [StoredShare] {
        try await call { pool in try await self.storedShares(pool) }
    }

    /// The shares, for the change reader on the cooperative pool (it must suspend, never block).
    func storedSharesAsync() async throws -> [StoredShare] {
        try await storedShares(pool)
    }

    /// The discoverable account with this (normalized) email address among the accounts of this
    /// container that `localcloud users add --email` keeps in the same database (schema
    /// `localcloud_identity`); `nil` when there is none, or no such table yet.
    package func userName(forEmailAddress address: String) async throws -> String? {
        try await call { pool in
            let exists = try await pool.rows("""
                SELECT 1 FROM information_schema.columns
                WHERE table_schema = 'localcloud_identity' AND table_name = 'accounts' AND column_name = 'email'
                """)
            guard !exists.isEmpty else { return nil }
            var statement = PostgresStatement("SELECT name FROM localcloud_identity.accounts WHERE container = ")
            statement.sql += "\(statement.bind(self.containerIdentifier)) AND email = \(statement.bind(address))"
            statement.sql += " AND discoverable ORDER BY name LIMIT 1"
            return try await pool.rows(statement.sql, statement.binds).first?.decode(String.self)
        }
    }

    private func storedShares(_ pool: PostgresPool) async throws -> [StoredShare] {
        try await pool.withConnection { connection in
            var statement = PostgresStatement("SELECT \(Self.recordColumns), r.owner FROM \(self.schema).records r WHERE ")
            statement.sql += "r.scope = \(statement.bind(Database.Scope.private.rawValue)) AND r.record_type = \(statement.bind(Share.storedRecordType))"
            var shares: [StoredShare] = []
            for row in try await connection.rows(statement, logger: pool.logger) {
                let record = try self.record(row, keys: nil)
                var owner = ""
                for (index, cell) in row.enumerated() where index == Self.recordColumnCount {
                    owner = try cell.decode(String.self)
                }
                if let share = Share.fromStored(record) { shares.append(StoredShare(owner: owner, share: share)) }
            }
            return shares
        }
    }
}
