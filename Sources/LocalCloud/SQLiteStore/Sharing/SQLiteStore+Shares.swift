import Foundation
import GRDB

extension SQLiteStore: ShareCatalog {
    /// Every share of every user's private database: a few rows, found through a partial index.
    func storedShares() async throws -> [StoredShare] {
        try await read { db in try Self.storedShares(db) }
    }

    /// The shares, read on an open connection (the change reader's). Shares hold no assets.
    static func storedShares(_ db: GRDB.Database) throws -> [StoredShare] {
        let sql = "SELECT \(SQLQueryPlan.recordColumns), r.owner FROM records r WHERE r.scope = ? AND r.record_type = 'cloudkit_share'"
        let statement = try db.cachedStatement(sql: sql)
        let rows = try Row.fetchCursor(statement, arguments: [Database.Scope.private.rawValue])
        var reader = RecordRowReader(assetsDirectory: URL(fileURLWithPath: "/nonexistent"), keys: nil)
        var shares: [StoredShare] = []
        while try rows.next() != nil {
            let record = reader.record(at: statement)
            let owner = StatementColumns(statement).string(Int32(SQLQueryPlan.recordColumnCount)) ?? ""
            if let share = Share.fromStored(record) { shares.append(StoredShare(owner: owner, share: share)) }
        }
        return shares
    }
}

extension SQLiteStore {
    /// The shares are found across owners by type: a partial index keeps that read to the share rows.
    static func registerShareMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v-sharing: shares by type") { db in
            try db.execute(sql: """
                CREATE INDEX records_shares ON records (scope, record_type) WHERE record_type = 'cloudkit_share'
                """)
        }
    }
}
