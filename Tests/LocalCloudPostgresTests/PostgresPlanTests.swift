import Foundation
import LocalCloud
import LocalCloudPostgres
import PostgresTestSupport
import Testing

/// The indexes queries rely on, proven with `EXPLAIN` on a few thousand restaurants (enough that
/// PostgreSQL prefers an index to reading the table).
@Suite(.enabled(if: !PostgresCluster.isSkipped, "LOCALCLOUD_SKIP_POSTGRES=1"), .serialized)
struct PostgresPlanTests {
    static let count = 5000

    /// A store with `count` restaurants written in one statement, then analyzed.
    static func loaded(_ fixture: PostgresFixture) async throws -> PostgresStore {
        let container = fixture.container(user: "alice", checksIndexes: true)
        try await container.importSchema(Schema(ckdb: """
            DEFINE SCHEMA
                RECORD TYPE Restaurant (
                    "___createTime" TIMESTAMP SORTABLE,
                    name     STRING QUERYABLE SORTABLE SEARCHABLE,
                    type     STRING QUERYABLE,
                    place    LOCATION QUERYABLE,
                    tags     LIST<STRING> QUERYABLE,
                    GRANT READ TO "_world"
                );
            """))
        let store = try await fixture.store()
        let s = store.schema
        try await PostgresCluster.shared().psql("""
            INSERT INTO \(s).records (scope, owner, zone, record_name, record_type, created_at, modified_at, created_by, modified_by,
                                      change_tag, fields, search)
            SELECT 1, '', '_defaultZone', 'r' || i, 'Restaurant', 1700000000 + i, 1700000000 + i, '_alice', '_alice', 'tag',
                   jsonb_build_object('name', jsonb_build_object('t', 'string', 'v', 'Restaurant ' || i),
                                      'type', jsonb_build_object('t', 'string', 'v', 'type' || (i % 50)),
                                      'place', jsonb_build_object('t', 'location', 'v', jsonb_build_array(22 + (i % 100) * 0.01, 114 + (i / 100) * 0.01)),
                                      'tags', jsonb_build_object('t', 'list', 'e', 'string', 'v', jsonb_build_array('t' || (i % 97)))),
                   to_tsvector('\(s).localcloud_search', CASE WHEN i = 7 THEN 'Café Deadend' ELSE 'Restaurant ' || i END)
            FROM generate_series(1, \(count)) AS i;
            ANALYZE \(s).records;
            """, database: fixture.url.database)
        return store
    }

    static func plan(_ store: PostgresStore, _ predicate: LocalCloud.Predicate, sort: [QuerySortKey] = [], anchor: QueryAnchor? = nil) async throws -> String {
        let query = Query(recordType: "Restaurant", predicate: predicate)
        var request = try QueryRequest(query: query, zoneID: .default, limit: 50, desiredKeys: ["name"])
        request.sort = sort
        request.anchor = anchor
        return try await store.explain(request, context: StoreContext(scope: .public, user: "alice"))
    }

    @Test func queryPlansUseTheirIndexes() async throws {
        let fixture = try await PostgresFixture()
        let store = try await Self.loaded(fixture)
        let newest = [QuerySortKey(key: "___createTime", ascending: false, location: nil)]

        // Discover: one type newest first, first page and a keyset page: a range of the index, no sort.
        let discover = try await Self.plan(store, LocalCloud.Predicate(value: true), sort: newest)
        #expect(discover.contains("Index Scan using records_by_type_created"), "\(discover)")
        #expect(!discover.contains("Sort"), "\(discover)")
        let page2 = try await Self.plan(store, LocalCloud.Predicate(value: true), sort: newest, anchor: QueryAnchor(values: [.real(1_700_002_000)], rowID: 2000))
        #expect(page2.contains("Index Scan using records_by_type_created"), "\(page2)")
        #expect(!page2.contains("Sort"), "\(page2)")

        // self CONTAINS: the tsvector's GIN index.
        let text = try await Self.plan(store, LocalCloud.Predicate(format: "self CONTAINS 'cafe'"), sort: newest)
        #expect(text.contains("records_search"), "\(text)")

        // A queryable field: its expression index.
        let equal = try await Self.plan(store, LocalCloud.Predicate(format: "type == 'type7'"))
        #expect(equal.contains("lcx_f_type"), "\(equal)")

        // A filter no record matches, sorted by another indexed field: PostgreSQL's statistics see
        // that it is rare and seek the filter's index (SQLite needs a probe for this, see
        // SQLQueryPlan.fieldMatchesFewRows); a common one may walk the name index or sort.
        let byName = [QuerySortKey(key: "name", ascending: true, location: nil)]
        let none = try await Self.plan(store, LocalCloud.Predicate(format: "type == 'Thai'"), sort: byName)
        #expect(none.contains("lcx_f_type"), "\(none)")
        #expect(!none.contains("lcx_f_name"), "\(none)")

        // Within a radius: the latitude band of the location's index.
        let near = try await Self.plan(store, LocalCloud.Predicate(format: "distanceToLocation:fromLocation:(place, %@) < 2", Location(latitude: 22.3, longitude: 114.2)))
            .replacingOccurrences(of: "\n", with: " ")
        #expect(near.contains("lcx_f_place_lat"), "\(near)")

        // A queryable list: its GIN index.
        let tags = try await Self.plan(store, LocalCloud.Predicate(format: "tags CONTAINS 't5'"))
        #expect(tags.contains("lcx_f_tags_gin"), "\(tags)")
    }

    @Test func expressionIndexesFollowTheSchema() async throws {
        let fixture = try await PostgresFixture()
        let container = fixture.container(user: "alice", checksIndexes: true)
        let store = try await Self.loaded(fixture)
        await #expect(try store.indexNames().contains("lcx_f_type"))
        try await container.updateSchema { schema in try schema.setIndex(.queryable, false, type: "Restaurant", field: "type") }
        await #expect(try !store.indexNames().contains("lcx_f_type"))
        try await container.updateSchema { schema in try schema.setIndex(.sortable, true, type: "Restaurant", field: "type") }
        await #expect(try store.indexNames().contains("lcx_f_type"))
    }

    /// Rows that arrived without statistics (a restored dump, a bulk load before autovacuum's first
    /// pass) are analyzed when a node opens the store: without statistics, a save's lookup of its
    /// record tied with the schema index on `(scope, owner, zone, modified_at)` and scanned the zone.
    @Test func aNodeOpeningUnanalyzedRowsAnalyzesThemSoASaveLooksUpOneRow() async throws {
        let fixture = try await PostgresFixture()
        let container = fixture.container(user: "alice", checksIndexes: true)
        try await container.importSchema(Schema(ckdb: """
            DEFINE SCHEMA
                RECORD TYPE Restaurant (
                    "___createTime" TIMESTAMP SORTABLE,
                    "___modTime" TIMESTAMP SORTABLE,
                    name     STRING QUERYABLE SORTABLE,
                    GRANT READ TO "_world"
                );
            """))
        let s = try await fixture.store().schema
        try await PostgresCluster.shared().psql("""
            INSERT INTO \(s).records (scope, owner, zone, record_name, record_type, created_at, modified_at, created_by, modified_by,
                                      change_tag, fields, search)
            SELECT 1, '', '_defaultZone', 'r' || i, 'Restaurant', 1700000000 + i, 1700000000 + i, '_alice', '_alice', 'tag',
                   jsonb_build_object('name', jsonb_build_object('t', 'string', 'v', 'Restaurant ' || i)), to_tsvector('simple', '')
            FROM generate_series(1, \(Self.count)) AS i
            """, database: fixture.url.database)
        let lookup = "EXPLAIN SELECT id FROM \(s).records WHERE scope = 1 AND owner = '' AND zone = '_defaultZone' AND record_name = 'r7' FOR UPDATE"
        func statistics(_ store: PostgresStore) async throws -> Int {
            try await store.pool.rows("SELECT count(*)::int FROM pg_stats WHERE schemaname = '\(s)' AND tablename = 'records'")
                .first?.decode(Int.self) ?? 0
        }
        let first = try await fixture.store()
        #expect(try await statistics(first) == 0, "the rows came without statistics")

        // Another node opens the store (its own pool and store object): it analyzes.
        let second = try await fixture.store(node: 2)
        #expect(try await statistics(second) > 0)
        let plan = try await second.pool.rows(lookup).map { try $0.decode(String.self) }.joined(separator: "\n")
        #expect(plan.contains("records_scope_owner_zone_record_name_key"), "\(plan)")
        #expect(!plan.contains("Filter"), "\(plan)")
    }
}
