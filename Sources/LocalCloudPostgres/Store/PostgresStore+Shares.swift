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
