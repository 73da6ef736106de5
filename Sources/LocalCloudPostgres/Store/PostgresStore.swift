import Foundation
import LocalCloud
import PostgresNIO
import Synchronization

/// The PostgreSQL backend: one PostgreSQL schema per container and environment, in a database
/// that several `localcloud serve` nodes share.
///
/// ```swift
/// let store = try PostgresStore.open(url: PostgresURL("postgresql://lc@db:5432/foodpin"),
///                                    containerIdentifier: "iCloud.FoodPin", environment: .development)
/// ```
///
/// - Each modify is one READ COMMITTED transaction; change tags are checked in the UPDATE itself
///   (`WHERE change_tag = $tag`), so two nodes cannot both win a conflict.
/// - Change-log rows are written last, under a transaction-scoped advisory lock, so sequence
///   numbers become visible in order: a reader that has seen `seq` never later finds a smaller one.
/// - Asset bytes live in `asset_chunks`, written in the transaction that inserts the asset row.
package final class PostgresStore: Sendable {
    package let pool: PostgresPool
    /// The PostgreSQL schema holding this container environment's tables (a safe identifier).
    package let schema: String
    package let containerIdentifier: String
    package let environment: Container.Environment
    let checksIndexes: Bool
    /// CloudKit's access rules, applied inside each call's transaction.
    let access: AccessRules
    /// Stamps records, zones, subscriptions and the change log.
    let clock: WallClock
    /// Local copies of asset bytes, so a fetched record's asset has a readable `fileURL`.
    package let assetCache: URL
    /// The change log's identity, so tokens from another database fail.
    let epoch: String
    /// String ranges on jsonb follow the database collation; only under "C" do they match code-point order.
    let collationIsC: Bool
    let schemaCache = Mutex<(stamp: String, schema: Schema)?>(nil)
    /// The schema as read under a change stamp: while the stamp is unchanged no node committed
    /// anything (schema writes NOTIFY like every commit), so queries and saves skip the stamp read.
    let schemaByChangeStamp = Mutex<(stamp: ChangeStamp, schema: Schema)?>(nil)
    /// The connections whose open transaction saved the schema (a save that evolved it in
    /// development), so its commit moves the schema stamp at once.
    let schemaSavedOn = Mutex<Set<ObjectIdentifier>>([])
    /// Group commit: modifies that arrive while one transaction runs share the next one, so the
    /// change-log lock and the commit's flush are paid once per batch, not once per save.
    /// Four batches at once: their statements overlap on four connections, and only the log
    /// insert and COMMIT queue on the log lock.
    let batcher = WriteBatcher<WriteJob>(concurrentBatches: 4)
    /// Batches still to run with a savepoint per modify: set when a batch without them had a
    /// failing modify and ran again, so a spell of conflicts (an outbox replaying saves that
    /// landed) pays for savepoints instead of every batch running twice.
    let savepointBatchesLeft = Atomic<Int>(0)
    /// The store's one LISTEN connection: it wakes every change reader of this process and keeps
    /// the change stamp in memory. Started by the first reader or change stamp, so a console
    /// command that only reads or writes opens none.
    package let listener: PostgresChangeListener

    /// The NOTIFY channel commits to this schema signal: a record or zone change's carries the
    /// new last sequence, every other write's an empty payload.
    package var channel: String { schema }

    private init(pool: PostgresPool, schema: String, containerIdentifier: String, environment: Container.Environment,
                 checksIndexes: Bool, assetCache: URL, epoch: String, collationIsC: Bool, clock: WallClock) {
        self.clock = clock
        self.pool = pool
        self.schema = schema
        self.containerIdentifier = containerIdentifier
        self.environment = environment
        self.checksIndexes = checksIndexes
        self.access = AccessRules(environment: environment, checksIndexes: checksIndexes)
        self.assetCache = assetCache
        self.epoch = epoch
        self.collationIsC = collationIsC
        listener = PostgresChangeListener(url: pool.url, channel: schema, connectTimeout: pool.url.connectTimeout)
    }

    // MARK: Opening

    private struct StoreKey: Hashable {
        var url: PostgresURL
        var schema: String
    }

    private static let pools = Mutex<[PostgresURL: PostgresPool]>([:])
    private static let stores = Mutex<[StoreKey: PostgresStore]>([:])

    /// The pool for a URL, shared by every store of this process on that database.
    package static func pool(for url: PostgresURL) -> PostgresPool {
        pools.withLock { pools in
            if let pool = pools[url] { return pool }
            let pool = PostgresPool(url: url)
            pools[url] = pool
            return pool
        }
    }

    /// The store of one container environment, migrated on first open and shared in this process.
    ///
    /// - Throws: `serviceUnavailable` when the database cannot be reached, `incompatibleVersion`
    ///   when its schema is newer than this binary.
    package static func open(url: PostgresURL, containerIdentifier: String, environment: Container.Environment,
                             checksIndexes: Bool = true, cacheDirectory: URL? = nil, clock: WallClock = .system) async throws -> PostgresStore {
        let schema = schemaName(containerIdentifier: containerIdentifier, environment: environment)
        let key = StoreKey(url: url, schema: schema)
        if let store = stores.withLock({ $0[key] }) { return store }
        let pool = pool(for: url)
        let migrator = migrator(schema: schema)
        let (epoch, collation) = try await call(pool) { pool in
            try await migrator.migrate(pool)
            let rows = try await pool.rows("""
                SELECT (SELECT value FROM \(schema).change_log_meta WHERE key = 'epoch'),
                       (SELECT datcollate FROM pg_database WHERE datname = current_database())
                """)
            guard let row = rows.first else { throw CloudError(.badDatabase, "The change log has no epoch") }
            let (epoch, collation) = try row.decode((String, String).self)
            try await analyzeIfNeverAnalyzed(schema: schema, pool: pool)
            return (epoch, collation)
        }
        let cache = cacheDirectory ?? URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("localcloud-pg-assets", isDirectory: true)
            .appendingPathComponent(schema, isDirectory: true)
        try? FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        let store = PostgresStore(pool: pool, schema: schema, containerIdentifier: containerIdentifier, environment: environment,
                                  checksIndexes: checksIndexes, assetCache: cache, epoch: epoch,
                                  collationIsC: collation == "C" || collation == "POSIX", clock: clock)
        try await store.addSegmentedSearchIfNeeded()
        return stores.withLock { stores in
            if let existing = stores[key] { return existing }
            stores[key] = store
            return store
        }
    }

    /// Gives the planner statistics for tables that hold rows but were never analyzed (a restored
    /// dump, or rows written in the minute before autovacuum's first pass). Without them every
    /// equality looks equally selective, and the record lookup of each save tied with a schema
    /// index on `(scope, owner, zone, field)`, so PostgreSQL scanned the whole zone: 5 ms and
    /// 4 ms of its CPU per save at 10,000 records, against 0.7 ms once analyzed.
    private static func analyzeIfNeverAnalyzed(schema: String, pool: PostgresPool) async throws {
        var query = PostgresStatement("SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ")
        query.sql += "n.nspname = \(query.bind(schema)) AND c.relkind = 'r' AND pg_relation_size(c.oid) > 0"
        query.sql += " AND NOT EXISTS (SELECT 1 FROM pg_stats s WHERE s.schemaname = n.nspname AND s.tablename = c.relname)"
        let rows = try await pool.rows(query.sql, query.binds)
        let tables = try rows.map { try $0.decode(String.self) }
        guard !tables.isEmpty else { return }
        _ = try await pool.rows("ANALYZE " + tables.map { "\(schema).\($0)" }.joined(separator: ", "))
    }

    /// `lc_<container>_<environment>_<hash>`: lower-case letters, digits and underscores, at most
    /// 63 bytes, and distinct for container identifiers that differ only in case or punctuation.
    package static func schemaName(containerIdentifier: String, environment: Container.Environment) -> String {
        let readable = containerIdentifier.lowercased().unicodeScalars
            .map { ("a"..."z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "_" }
        let hash = Hex.encode(SHA256Hasher.digest(of: Array("\(containerIdentifier)/\(environment.rawValue)".utf8)).prefix(4))
        return "lc_" + String(String(readable).prefix(36)) + "_" + environment.rawValue.prefix(4) + "_" + hash
    }

    // MARK: Calls

    /// Runs `body` on the pool, with PostgreSQL's and the pool's errors as `CloudError`.
    func call<T: Sendable>(_ body: @Sendable (PostgresPool) async throws -> T) async throws -> T {
        do {
            return try await body(pool)
        } catch {
            throw PostgresPool.cloudError(error)
        }
    }

    /// Runs `body` in one transaction that notifies every node, and counts the commit as one that
    /// may have changed the schema.
    ///
    /// The NOTIFY (delivered on COMMIT) is what moves the other nodes' change stamps: schema,
    /// subscription and compaction writes leave no change-log row of their own to announce them.
    func write<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let channel = channel
        let value = try await call { pool in
            try await pool.transaction { connection in
                let value = try await body(connection)
                var notify = PostgresStatement("SELECT pg_notify(")
                notify.sql += "\(notify.bind(channel)), '')"
                _ = try await connection.rows(notify, logger: pool.logger)
                _ = self.schemaSaved(on: connection)
                return value
            }
        }
        listener.noteLocalSchemaCommit()
        return value
    }

    /// A transaction of this process committed: the change stamp moves now, not when its NOTIFY comes back.
    func committed() {
        listener.noteLocalCommit()
    }

    /// ``call(_:)`` before a store exists (opening it).
    static func call<T: Sendable>(_ pool: PostgresPool, _ body: @Sendable (PostgresPool) async throws -> T) async throws -> T {
        do {
            return try await body(pool)
        } catch {
            throw PostgresPool.cloudError(error)
        }
    }

    static let newChangeTag: @Sendable () -> String = {
        String(UInt64.random(in: 1...UInt64.max), radix: 36)
    }
}
