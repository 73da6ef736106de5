import Foundation
import GRDB

extension SQLiteStore {
    /// Registers the indexes the query compiler's plans rely on, after every other migration.
    static func registerQueryMigrations(_ migrator: inout DatabaseMigrator) {
        // A query without sort descriptors pages in row-ID order. The Discover index
        // `(…, record_type, created_at, id)` cannot give that order, so SQLite read every record
        // of the type and sorted them: about 100 ms for one row out of 100,000. Entries of an
        // index end with the row ID, so this one returns a type's records in row-ID order, and
        // a keyset page seeks straight to `rowid > ?`.
        migrator.registerMigration("v3: records by type in row order") { db in
            try db.execute(sql: "CREATE INDEX records_by_type ON records (scope, owner, zone, record_type)")
        }
        // Queryable lists gained side tables of their elements (``SchemaIndexes``); a schema
        // stored before then gets them now rather than at its next change.
        migrator.registerMigration("v4: side tables of queryable lists") { db in
            try SchemaIndexes.synchronize(with: try SchemaStorage.load(db).schema, db)
        }
        // FTS5 merges its segments every 4 by default; new words (names, numbers) in every save
        // made those merges most of a save's cost past 100,000 records. Merging every 16 does a
        // quarter of the rewriting (2,350 saves/s against 1,460 through the server).
        migrator.registerMigration("v5: full-text automerge 16") { db in
            try db.execute(sql: "INSERT INTO records_fts(records_fts, rank) VALUES ('automerge', 16)")
        }
        // Search as you type (`CONTAINS_AS_TYPED`) reads a second column, the text with every CJK
        // character a token of its own (``TypedSearchTerms/segmented(_:)``), so a run of them is
        // found as a phrase anywhere; `body` keeps `self CONTAINS` as it was. The prefix index
        // answers a word being typed (`"c" *`) from the index of its first letters rather than
        // merging the entries of every word that starts with them.
        migrator.registerMigration("v6: full-text segmented column and prefix index") { db in
            try db.execute(sql: """
                ALTER TABLE records_fts RENAME TO records_fts_v5;
                CREATE VIRTUAL TABLE records_fts USING fts5 (body, segmented, tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3');
                INSERT INTO records_fts(records_fts, rank) VALUES ('automerge', 16);
                """)
            let rows = try Row.fetchCursor(db, sql: "SELECT rowid, body FROM records_fts_v5")
            let insert = try db.makeStatement(sql: "INSERT INTO records_fts (rowid, body, segmented) VALUES (?, ?, ?)")
            while let row = try rows.next() {
                let body: String = row[1] ?? ""
                try insert.execute(arguments: [row[0] as Int64, body, TypedSearchTerms.segmented(body)])
            }
            try db.execute(sql: "DROP TABLE records_fts_v5")
        }
    }

    /// The plan a query starts with (before the full-text probe, which runs with the page) and
    /// what its planning probes found, read in the query's own transaction.
    func plannedQuery(_ request: QueryRequest, context: StoreContext, db: GRDB.Database) throws
        -> (plan: SQLQueryPlan, locationIndexes: Set<String>, listIndexes: Set<String>, fewMatches: Bool) {
        let locationIndexes = request.predicate.hasDistance ? try SchemaIndexes.locationIndexes(db) : []
        var listIndexes: Set<String> = []
        var fewListMatches = false
        if request.predicate.hasListMatch {
            listIndexes = try SchemaIndexes.listIndexes(db)
            fewListMatches = try SQLQueryPlan.listMatchesFewRows(request.predicate, listIndexes: listIndexes, db)
        }
        // A rare `field == value` sorted on another field starts from its index too (not the sort index).
        if !fewListMatches, !request.sort.isEmpty, request.predicate.hasFieldEquality {
            fewListMatches = try SQLQueryPlan.fieldMatchesFewRows(request, context: context, db)
        }
        let compiled = try SQLQueryPlan.compile(request, context: context, locationIndexes: locationIndexes,
                                            listIndexes: listIndexes, fewListMatches: fewListMatches)
        return (compiled, locationIndexes, listIndexes, fewListMatches)
    }

    /// ``plannedQuery(_:context:db:)`` in a read of its own.
    func plannedQuery(_ request: QueryRequest, context: StoreContext) async throws
        -> (plan: SQLQueryPlan, locationIndexes: Set<String>, listIndexes: Set<String>, fewMatches: Bool) {
        try await read { [self] db in try plannedQuery(request, context: context, db: db) }
    }

    func queryRecords(_ request: QueryRequest, context: StoreContext) async throws -> QueryPage {
        try await readStatement { [self] db in
            try checkAccess(.query(request), context: context, db: db)
            let (compiled, locationIndexes, listIndexes, fewListMatches) = try plannedQuery(request, context: context, db: db)
            // A shared-database page names its zone with the owner, as the sharing layer shows it.
            let sharedZone = context.sharedOwner != nil ? request.zoneID : nil
            // A broad full-text search ("restaurant" in every record) pages down the sort index instead.
            let isLarge = request.predicate.hasTextSearch ? try SQLQueryPlan.textMatchIsLarge(request, db) : false
            let plan = isLarge
                ? try SQLQueryPlan.compile(request, context: context, locationIndexes: locationIndexes, listIndexes: listIndexes,
                                           fewListMatches: fewListMatches, largeTextMatch: true)
                : compiled
            if request.zoneID.zoneName != RecordZone.ID.defaultZoneName {
                try requireZone(request.zoneID, context: context, db: db)
            }
            // A broad search newest first: try the newest records' row IDs first (SQLiteStore+TextWindow).
            if isLarge, Self.canUseTextWindow(request),
               let floor = try Self.textWindowFloor(request, context: context, db: db),
               let windowed = Self.windowed(plan, floor: floor) {
                let page = try readPage(windowed, request: request, cached: false, zoneID: sharedZone, db: db)
                if let last = page.next,
                   !(try Self.textWindowMissed(request, context: context, floor: floor, before: last.createdAt,
                                               rowID: last.rowID, db: db)) {
                    return page.page
                }
            }
            return try readPage(plan, request: request, cached: true, zoneID: sharedZone, db: db).page
        }
    }

    /// Reads one page with `plan`; `next` is the row after the page (its sort value and row ID), if any.
    /// `zoneID`, when given, is the zone ID the records get (see ``RecordRowReader``).
    private func readPage(_ plan: SQLQueryPlan, request: QueryRequest, cached: Bool, zoneID: RecordZone.ID?, db: GRDB.Database) throws
        -> (page: QueryPage, next: (createdAt: DatabaseValue, rowID: Int64)?) {
        // Decode rows in place from the statement: no copied rows.
        let statement = cached ? try db.cachedStatement(sql: plan.sql) : try db.makeStatement(sql: plan.sql)
        let rows = try Row.fetchCursor(statement, arguments: plan.arguments)
        let firstSortColumn = SQLQueryPlan.recordColumnCount
        // A shared-database page (``StoreContext/sharedOwner``) names its zone with the owner.
        var reader = RecordRowReader(assetsDirectory: assetsDirectory, keys: plan.fieldKeys,
                                     zoneID: zoneID)
        var records: [Record] = []
        records.reserveCapacity(request.limit)
        var anchor: QueryAnchor?
        var hasMore = false
        var next: (createdAt: DatabaseValue, rowID: Int64)?
        while let row = try rows.next() {
            if records.count == request.limit {
                hasMore = true
                if plan.sortColumnCount > 0 { next = (row[firstSortColumn] as DatabaseValue, row[0]) }
                break
            }
            records.append(reader.record(at: statement))
            if records.count == request.limit {
                let values = (0..<plan.sortColumnCount).map { SQLScalar(row[firstSortColumn + $0] as DatabaseValue) }
                anchor = QueryAnchor(values: values, rowID: row[0])
            }
        }
        let cursor = hasMore ? anchor.map(request.cursor(after:)) : nil
        return (QueryPage(records: records, cursor: cursor), next)
    }
}
