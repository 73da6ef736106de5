import Foundation
import GRDB
import Testing
@testable import LocalCloud

/// Search as you type: how a text becomes terms, the FTS5 and offline matches they make, and the
/// migration that gives an existing store's full-text index its segmented column.
struct TypedSearchTermsTests {
    @Test func theLastWordIsAPrefixUntilSomethingEndsIt() {
        #expect(TypedSearchTerms("caf").terms == [.prefix("caf")])
        #expect(TypedSearchTerms("cafe de").terms == [.word("cafe"), .prefix("de")])
        #expect(TypedSearchTerms("caf ").terms == [.word("caf")])
        #expect(TypedSearchTerms("caf,").terms == [.word("caf")])
        #expect(TypedSearchTerms("  \"%@ ").isEmpty)
        #expect(TypedSearchTerms("o'bri").terms == [.word("o"), .prefix("bri")])
    }

    @Test func cjkRunsAreSubstringsAndSplitFromLatin() {
        #expect(TypedSearchTerms("拉麵").terms == [.run(["拉", "麵"])])
        #expect(TypedSearchTerms("拉麵 tok").terms == [.run(["拉", "麵"]), .prefix("tok")])
        #expect(TypedSearchTerms("凪nag").terms == [.run(["凪"]), .prefix("nag")])
        #expect(TypedSearchTerms("nag凪").terms == [.word("nag"), .run(["凪"])])
        #expect(TypedSearchTerms("라면 집").terms == [.run(["라", "면"]), .run(["집"])])
        #expect(TypedSearchTerms.segmented("一蘭拉麵 Ichiran") == " 一  蘭  拉  麵  Ichiran")
        #expect(TypedSearchTerms.segmented("Café") == "Café")
    }

    @Test func theOfflineMatchAgreesWithTheIndex() {
        let text = "Café Déjà Vu\nBistro\n一蘭拉麵"
        for query in ["c", "caf", "CAFÉ", "cafe de", "deja vu", "bistro caf", "拉麵", "一蘭", "蘭拉", "拉麵 caf"] {
            #expect(TypedSearchTerms(query).matches(text), "\(query)")
        }
        for query in ["caf ", "拉一", "x", "cafe tok", "vu caf ", ""] {
            #expect(!TypedSearchTerms(query).matches(text), "\(query)")
        }
    }

    @Test func ftsQueriesQuoteEveryTermAndNameTheirColumn() {
        #expect(SQLiteDialect.ftsQuery(.asTyped(TypedSearchTerms("cafe de").terms)) == "segmented : \"cafe\" AND segmented : \"de\" *")
        #expect(SQLiteDialect.ftsQuery(.asTyped(TypedSearchTerms("拉麵 x\"y").terms)) == "segmented : \"拉 麵\" AND segmented : \"x\" AND segmented : \"y\" *")
        #expect(SQLiteDialect.ftsQuery(.asTyped(TypedSearchTerms(" %@ ").terms)) == nil)
        #expect(SQLiteDialect.ftsQuery(["cafe", "deja"], separator: " ") == "{body} : (\"cafe\" \"deja\")")
    }

    @Test func aStoreFromBeforeTheSegmentedColumnGetsItOnOpen() async throws {
        let cloud = TestCloud()
        let container = cloud.container(user: "alice", checksIndexes: false)
        for (name, title) in [("ichiran", "一蘭拉麵"), ("cafe", "Café Déjà Vu")] {
            let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: name))
            record["name"] = title
            _ = try await container.publicCloudDatabase.save(record)
        }
        // Back to the full-text table of v5: the body alone, and no record of migration v6.
        let file = try await container.core.sqliteStore().fileURL
        var configuration = Configuration()
        configuration.prepareDatabase { db in db.add(function: SQLiteStore.segmentedFunction) }
        let queue = try DatabaseQueue(path: file.path, configuration: configuration)
        try await queue.write { db in
            try db.execute(sql: """
                CREATE VIRTUAL TABLE old_fts USING fts5 (body, tokenize = 'unicode61 remove_diacritics 2');
                INSERT INTO old_fts (rowid, body) SELECT rowid, body FROM records_fts;
                DROP TABLE records_fts;
                ALTER TABLE old_fts RENAME TO records_fts;
                DELETE FROM grdb_migrations WHERE identifier = 'v6: full-text segmented column and prefix index';
                """)
        }
        #expect(try await queue.read { db in try SQLiteStore.migrator.hasBeenSuperseded(db) == false && SQLiteStore.migrator.hasCompletedMigrations(db) == false })
        // What the next open does: the registered migrations that have not run.
        try SQLiteStore.migrator.migrate(queue)
        try queue.close()

        let reopened = container
        let query = Query(recordType: "Restaurant", predicate: .textSearch(asTyped: "蘭拉"))
        #expect(try await reopened.publicCloudDatabase.records(matching: query).matchResults.map(\.0.recordName) == ["ichiran"])
        let prefix = Query(recordType: "Restaurant", predicate: .textSearch(asTyped: "caf"))
        #expect(try await reopened.publicCloudDatabase.records(matching: prefix).matchResults.map(\.0.recordName) == ["cafe"])
        let columns = try await reopened.core.sqliteStore().read { db in
            try Row.fetchAll(db, sql: "PRAGMA table_info(records_fts)").map { $0["name"] as String }
        }
        #expect(columns == ["body", "segmented"])
    }
}
