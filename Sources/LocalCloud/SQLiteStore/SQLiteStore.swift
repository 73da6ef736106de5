import Foundation
import GRDB
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The SQLite backend: one WAL database file per container and environment, assets beside it.
///
/// Every write is one `BEGIN IMMEDIATE` transaction, and connections wait on a busy
/// timeout, so several processes can write one file at once without busy errors reaching
/// callers. Stores opened on the same file in one process share one `DatabasePool`.
final class SQLiteStore: RecordStore {
    let fileURL: URL
    let assetsDirectory: URL
    let pool: DatabasePool
    /// CloudKit's access rules, applied inside each read's and write's transaction.
    let access: AccessRules
    /// The schema those rules last read, with its stamp: decoded again only when another writer changed it.
    let schemaCache = Mutex<(stamp: String, schema: Schema)?>(nil)
    /// Stamps records, zones, subscriptions and the change log.
    let clock: WallClock
    /// Commits through this store, for ``Container/changeStamp()``.
    let commits = Atomic<UInt64>(0)
    /// Shares transactions among concurrent writes (group commit).
    let batcher = WriteBatcher<WriteJob>()

    /// How long a connection waits for another process's lock before giving up.
    static let busyTimeout: TimeInterval = 30

    private init(fileURL: URL, assetsDirectory: URL, access: AccessRules, clock: WallClock) throws {
        self.clock = clock
        self.fileURL = fileURL
        self.assetsDirectory = assetsDirectory
        self.access = access
        try FileManager.default.createDirectory(at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: assetsDirectory, withIntermediateDirectories: true)
        var config = Configuration()
        config.busyMode = .timeout(Self.busyTimeout)
        config.label = "LocalCloud"
        config.prepareDatabase { db in
            // WAL with NORMAL sync: a commit survives a process crash; only an OS crash may lose the last ones.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // 16 MB of page cache per connection (SQLite's default is 2 MB): a save touches a
            // page of every index, at random places in the name indexes; past 100,000 records
            // they outgrow 2 MB and every save re-reads and re-parses pages.
            try db.execute(sql: "PRAGMA cache_size = -16384")
            db.add(function: Self.distanceFunction)
            db.add(function: Self.segmentedFunction)
        }
        pool = try Self.retryingBusyAtOpen { try DatabasePool(path: fileURL.path, configuration: config) }
        try FileLock.withExclusiveLock(fileURL.appendingPathExtension("migrate-lock")) {
            try Self.retryingBusyAtOpen { try Self.migrator.migrate(pool) }
        }
    }


    // MARK: Shared pools

    /// An open store, held weakly so the last container to let go closes it (`weak let`: the
    /// compiler checks the class is Sendable).
    private final class WeakStore: Sendable {
        weak let store: SQLiteStore?
        init(_ store: SQLiteStore) { self.store = store }
    }

    private static let openStores = Mutex<[String: WeakStore]>([:])

    /// The store for a file, shared by every container in this process that opens it (with the
    /// clock of the first).
    static func open(fileURL: URL, assetsDirectory: URL, access: AccessRules = .accountOnly,
                     clock: WallClock = .system) throws -> SQLiteStore {
        let key = fileURL.standardizedFileURL.path
        return try openStores.withLock { stores in
            if let existing = stores[key]?.store { return existing }
            do {
                let store = try SQLiteStore(fileURL: fileURL, assetsDirectory: assetsDirectory, access: access, clock: clock)
                stores[key] = WeakStore(store)
                store.collectGarbageInBackground()
                return store
            } catch let error as CloudError {
                throw error
            } catch {
                throw CloudError(.badDatabase, "Cannot open the LocalCloud database at \(fileURL.path): \(error)", cause: error)
            }
        }
    }

    // MARK: Schema

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: records, zones, assets, references, change log, full text") { db in
            try db.execute(sql: """
                CREATE TABLE records (
                    id INTEGER PRIMARY KEY,
                    scope INTEGER NOT NULL,
                    owner TEXT NOT NULL,
                    zone TEXT NOT NULL,
                    record_name TEXT NOT NULL,
                    record_type TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    modified_at REAL NOT NULL,
                    created_by TEXT NOT NULL,
                    modified_by TEXT NOT NULL,
                    change_tag TEXT NOT NULL,
                    fields TEXT NOT NULL,
                    UNIQUE (scope, owner, zone, record_name)
                );
                -- The Discover query: one type in one zone, newest first, paged by keyset.
                CREATE INDEX records_by_type_created ON records (scope, owner, zone, record_type, created_at DESC, id DESC);
                CREATE TABLE zones (
                    scope INTEGER NOT NULL,
                    owner TEXT NOT NULL,
                    zone_name TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    PRIMARY KEY (scope, owner, zone_name)
                ) WITHOUT ROWID;
                -- Which records use which asset files; files no row names are orphans for GC.
                CREATE TABLE record_assets (
                    record_id INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
                    digest TEXT NOT NULL,
                    PRIMARY KEY (record_id, digest)
                ) WITHOUT ROWID;
                CREATE INDEX record_assets_by_digest ON record_assets (digest);
                CREATE TABLE record_references (
                    record_id INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
                    scope INTEGER NOT NULL,
                    owner TEXT NOT NULL,
                    target_zone TEXT NOT NULL,
                    target_name TEXT NOT NULL,
                    action INTEGER NOT NULL
                );
                CREATE INDEX record_references_by_target ON record_references (scope, owner, target_zone, target_name);
                CREATE INDEX record_references_by_record ON record_references (record_id);
                -- Every change, written in the same transaction: change tokens and notifications read it.
                CREATE TABLE change_log (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    scope INTEGER NOT NULL,
                    owner TEXT NOT NULL,
                    zone TEXT NOT NULL,
                    record_name TEXT NOT NULL,
                    record_type TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    at REAL NOT NULL
                );
                CREATE VIRTUAL TABLE records_fts USING fts5 (body, tokenize = 'unicode61 remove_diacritics 2');
                """)
        }
        registerChangeMigrations(&migrator)
        SchemaStorage.registerMigrations(&migrator)
        registerQueryMigrations(&migrator)
        registerShareMigrations(&migrator)
        return migrator
    }

    /// `localcloud_distance_km(lat1, lon1, lat2, lon2)`: haversine distance, NULL when a point is missing.
    static let distanceFunction = DatabaseFunction("localcloud_distance_km", argumentCount: 4, pure: true) { values in
        guard let lat1 = Double.fromDatabaseValue(values[0]), let lon1 = Double.fromDatabaseValue(values[1]),
              let lat2 = Double.fromDatabaseValue(values[2]), let lon2 = Double.fromDatabaseValue(values[3])
        else { return nil }
        return Location(latitude: lat1, longitude: lon1).distance(from: Location(latitude: lat2, longitude: lon2)) / 1000
    }

    /// `localcloud_segmented(text)`: the text with every CJK character a token of its own, for
    /// the full-text `segmented` column (``TypedSearchTerms/segmented(_:)``).
    static let segmentedFunction = DatabaseFunction("localcloud_segmented", argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0]).map(TypedSearchTerms.segmented)
    }

    // MARK: Transactions

    /// Runs `body` in an IMMEDIATE transaction, in its own savepoint; it returns whether to commit.
    ///
    /// Concurrent writes share one transaction (``WriteBatcher``), each rolled back alone when it
    /// asks to be or throws; a failed commit fails every write of the batch. The caller suspends
    /// until the batch holding its write has committed.
    func write<T: Sendable>(_ body: @escaping @Sendable (GRDB.Database) throws -> (T, commit: Bool)) async throws -> T {
        let outcome = Mutex<Result<T, any Error>?>(nil)
        let job = WriteJob(
            run: { db in
                let result = Result<T, any Error> {
                    let value = Mutex<T?>(nil)
                    try db.inSavepoint {
                        let (result, commit) = try body(db)
                        value.withLock { $0 = result }
                        return commit ? .commit : .rollback
                    }
                    guard let result = value.withLock({ $0 }) else { throw CloudError(.internalError, "Transaction produced no result") }
                    return result
                }
                outcome.withLock { $0 = result }
            },
            fail: { error in outcome.withLock { $0 = .failure(error) } })
        let pool = pool
        await batcher.submit(job) { [self] batch in
            do {
                try await Self.retryingBusy {
                    try await pool.writeWithoutTransaction { db in
                        try db.inTransaction(.immediate) {
                            for queued in batch { queued.run(db) }
                            return .commit
                        }
                    }
                }
                self.commits.add(1, ordering: .releasing)
            } catch {
                for queued in batch { queued.fail(error) }
            }
        }
        switch outcome.withLock({ $0 }) {
        case .success(let value)?: return value
        case .failure(let error as CloudError)?: throw error
        case .failure(let error as DatabaseError)?: throw Self.cloudError(error)
        case .failure(let error)?: throw error
        case nil: throw CloudError(.internalError, "The write did not run")
        }
    }

    /// Runs `body` on a reader connection (GRDB's async access: the caller suspends meanwhile).
    func read<T: Sendable>(_ body: @escaping @Sendable (GRDB.Database) throws -> T) async throws -> T {
        let pool = pool
        return try await Self.retryingBusy { try await pool.read(body) }
    }

    /// Runs `body` on a reader connection outside a transaction: each statement reads its own
    /// snapshot. For reads whose statements need not agree on one (a query page is one SELECT;
    /// the schema check and planning probes before it only choose how to read), where GRDB's
    /// BEGIN and COMMIT around ``read(_:)`` cost two statements prepared afresh per call.
    func readStatement<T: Sendable>(_ body: @escaping @Sendable (GRDB.Database) throws -> T) async throws -> T {
        let pool = pool
        return try await Self.retryingBusy { try await pool.unsafeRead(body) }
    }

    /// How the store waits out the rare busy/locked results a busy timeout does not cover (WAL
    /// recovery, schema changes by another process): 10 ms doubling to 100 ms, 50 attempts (about 5 s).
    static let busyBackoff = Backoff(first: .milliseconds(10), maximum: .milliseconds(100))
    static let busyAttempts = 50

    /// The wait before trying again after `error`, the `failures`th in a row; `nil` to give up.
    static func busyRetryDelay(after error: any Error, failures: Int) -> Duration? {
        guard let error = error as? DatabaseError, isBusy(error), failures <= busyAttempts else { return nil }
        return busyBackoff.delay(afterFailures: failures)
    }

    /// An error as the store throws it: SQLite's become `CloudError`s, the rest pass as they are.
    static func storeError(_ error: any Error) -> any Error {
        if let error = error as? DatabaseError { return cloudError(error) }
        return error
    }

    /// Runs `body`, retrying busy results by ``busyRetryDelay(after:failures:)``: the task
    /// suspends between attempts.
    static func retryingBusy<T>(_ body: () async throws -> T) async throws -> T {
        var failures = 0
        while true {
            do {
                return try await body()
            } catch {
                failures += 1
                guard let delay = busyRetryDelay(after: error, failures: failures) else { throw storeError(error) }
                try await Task.sleep(for: delay)
            }
        }
    }

    /// ``retryingBusy(_:)`` for opening a store, which happens once, synchronously, on the opener's
    /// `BlockingThread` before any task uses it: the only place a SQLite store's thread waits.
    static func retryingBusyAtOpen<T>(_ body: () throws -> T) throws -> T {
        var failures = 0
        while true {
            do {
                return try body()
            } catch {
                failures += 1
                guard let delay = busyRetryDelay(after: error, failures: failures) else { throw storeError(error) }
                usleep(useconds_t(delay.components.seconds * 1_000_000 + delay.components.attoseconds / 1_000_000_000_000))
            }
        }
    }

    static func isBusy(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
    }

    /// A SQLite error as LocalCloud reports it: a full disk says so (`quotaExceeded`), the rest are internal.
    static func cloudError(_ error: DatabaseError) -> CloudError {
        if CloudError.isOutOfSpace(error) { return CloudError.diskFull(writing: "the record store", cause: error) }
        return CloudError(.internalError, "Database error: \(error.message ?? error.description)", cause: error)
    }

    // MARK: Rows

    static let newChangeTag: @Sendable () -> String = {
        String(UInt64.random(in: 1...UInt64.max), radix: 36)
    }

    func assetURL(forDigest digest: String) -> URL? {
        Self.assetURL(forDigest: digest, in: assetsDirectory)
    }

    static func assetURL(forDigest digest: String, in assetsDirectory: URL) -> URL? {
        digest.isEmpty ? nil : AssetStore(root: assetsDirectory, sizeLimit: 0).url(forDigest: digest)
    }

    /// Every row `statement` selects with `arguments`, as records (see ``RecordRowReader``).
    /// `keys` are the fields to decode (``SQLQueryPlan/fieldKeys(_:)``), `nil` for all.
    func records(_ statement: Statement, arguments: StatementArguments, keys: [String]? = nil) throws -> [Record] {
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        var reader = RecordRowReader(assetsDirectory: assetsDirectory, keys: keys)
        var records: [Record] = []
        while try rows.next() != nil {
            records.append(reader.record(at: statement))
        }
        return records
    }
}

extension SQLiteStore: CloudStore {}
