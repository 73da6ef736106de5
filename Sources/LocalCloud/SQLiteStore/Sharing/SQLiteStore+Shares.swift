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
    /// The accounts file `localcloud users` keeps beside the store: `<dataDir>/<container>/identity.sqlite`.
    var identityFileURL: URL { fileURL.deletingLastPathComponent().appendingPathComponent("identity.sqlite") }

    /// The discoverable account with this (normalized) email address in ``identityFileURL``,
    /// opened read-only for the lookup; `nil` without the file, or in a file from before accounts
    /// had email addresses. (On the embedded store, everyone on the machine shares the data
    /// directory, so its accounts are the people one can share with by email.)
    func userName(forEmailAddress address: String) async throws -> String? {
        let url = identityFileURL
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.label = "LocalCloud identity (read-only)"
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        return try await queue.read { db in
            guard try db.tableExists("account"), try db.columns(in: "account").contains(where: { $0.name == "email" }) else { return nil }
            return try String.fetchOne(db, sql: "SELECT name FROM account WHERE email = ? AND discoverable = 1 ORDER BY name LIMIT 1",
                                       arguments: [address])
        }
    }

    /// The shares are found across owners by type: a partial index keeps that read to the share rows.
    static func registerShareMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v-sharing: shares by type") { db in
            try db.execute(sql: """
                CREATE INDEX records_shares ON records (scope, record_type) WHERE record_type = 'cloudkit_share'
                """)
        }
        // A deleted record leaves no parent chain to walk, so its log row keeps the parent it had:
        // a hierarchy share's participant hears only of deletions inside the hierarchy. NULL on
        // rows logged before (and on other kinds of change).
        migrator.registerMigration("v-sharing 2: parents of deleted records") { db in
            try db.execute(sql: "ALTER TABLE change_log ADD COLUMN parent TEXT")
        }
    }
}
