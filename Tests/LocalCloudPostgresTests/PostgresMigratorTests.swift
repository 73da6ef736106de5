import Foundation
import LocalCloud
import LocalCloudPostgres
import PostgresTestSupport
import Testing

/// Versioned, registered migrations on a real PostgreSQL: an empty database gets them all, an
/// older one the rest, nodes starting together apply each once, and a newer one is refused.
@Suite(.enabled(if: !PostgresCluster.isSkipped, "LOCALCLOUD_SKIP_POSTGRES=1"))
struct PostgresMigratorTests {
    /// Versions 1…`version` of a small schema; version 2 sleeps so that racing nodes overlap.
    static func migrator(upTo version: Int, schema: String) -> PostgresMigrator {
        var migrator = PostgresMigrator(schema: schema)
        let steps: [(Int, String, [String])] = [
            (1, "a table", ["CREATE TABLE \(schema).places (id integer PRIMARY KEY)"]),
            (2, "a column", ["SELECT pg_sleep(0.2)", "ALTER TABLE \(schema).places ADD COLUMN name text"]),
            (3, "an index", ["CREATE INDEX places_by_name ON \(schema).places (name)"]),
        ]
        for (number, name, statements) in steps where number <= version {
            migrator.register(number, name, statements)
        }
        return migrator
    }

    static func versions(_ pool: PostgresPool, schema: String) async throws -> [Int] {
        try await pool.rows("SELECT version FROM \(schema).schema_migrations ORDER BY version").map { try $0.decode(Int.self) }
    }

    @Test func anEmptyDatabaseGetsEveryMigrationAndAnOlderOneOnlyTheRest() async throws {
        let pool = await PostgresPool(url: try PostgresCluster.shared().makeDatabase(), maximumConnections: 2)
        defer { pool.close() }
        #expect(try await Self.migrator(upTo: 1, schema: "app").migrate(pool) == [1])
        #expect(try await Self.migrator(upTo: 3, schema: "app").migrate(pool) == [2, 3])
        #expect(try await Self.migrator(upTo: 3, schema: "app").migrate(pool) == [])
        #expect(try await Self.versions(pool, schema: "app") == [1, 2, 3])
        let index = try await pool.rows("SELECT count(*) FROM pg_indexes WHERE schemaname = 'app' AND indexname = 'places_by_name'")
        #expect(try index.first?.decode(Int.self) == 1)
    }

    @Test func nodesStartingTogetherApplyEachMigrationOnce() async throws {
        let url = try await PostgresCluster.shared().makeDatabase()
        // Six "nodes": each its own pool, so its own sessions, all migrating an empty database at once.
        let pools = (0..<6).map { _ in PostgresPool(url: url, maximumConnections: 1) }
        defer { pools.forEach { $0.close() } }
        let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
            for pool in pools {
                group.addTask { try await Self.migrator(upTo: 3, schema: "race").migrate(pool) }
            }
            return try await group.reduce(into: [Int]()) { $0 += $1 }
        }
        #expect(applied.sorted() == [1, 2, 3])
        #expect(try await Self.versions(pools[0], schema: "race") == [1, 2, 3])
    }

    @Test func twoStoresOpeningAFreshDatabaseTogetherBothWork() async throws {
        let fixture = try await PostgresFixture()
        async let first = Task.detached { try await fixture.store(node: 1) }.value
        async let second = Task.detached { try await fixture.store(node: 2) }.value
        let (one, two) = try await (first, second)
        let record = Record(recordType: "Restaurant")
        record["name"] = "Both nodes"
        _ = try await fixture.container(node: 1).publicCloudDatabase.save(record)
        let fetched = try await fixture.container(node: 2).publicCloudDatabase.record(for: record.recordID)
        #expect(fetched["name"] as? String == "Both nodes")
        _ = (one, two)
    }

    @Test func aDatabaseNewerThanThisBinaryIsRefusedAndLeftAlone() async throws {
        let pool = await PostgresPool(url: try PostgresCluster.shared().makeDatabase(), maximumConnections: 2)
        defer { pool.close() }
        try await Self.migrator(upTo: 3, schema: "ahead").migrate(pool)
        do {
            try await Self.migrator(upTo: 2, schema: "ahead").migrate(pool)
            Issue.record("an older binary migrated a newer database")
        } catch let error as CloudError {
            #expect(error.code == .incompatibleVersion)
            #expect(error.message.contains("version 3, newer than this localcloud knows (2)"))
        }
        #expect(try await Self.versions(pool, schema: "ahead") == [1, 2, 3])
        // The advisory lock was released: the current binary still starts.
        #expect(try await Self.migrator(upTo: 3, schema: "ahead").migrate(pool) == [])
    }
}
