// localcloud-bench: LocalCloud against the same work in raw SQL through GRDB, on the same file.
//
//   swift run -c release localcloud-bench [--records 100000] [--single 2000] [--pages 500] [--data-dir DIR]
//
// 1. Single saves: `Database.save(_:)` one record at a time vs one INSERT per transaction.
// 2. Batched saves: `modifyRecords` with 400 records per call vs 400 INSERTs per transaction.
//    The batched run fills the container with `--records` Restaurant records.
// 3. The Discover query (Restaurant, creationDate descending, 50 rows, desiredKeys name/type/location):
//    first page and next page by cursor, vs the same SELECT with keyset paging in raw SQL.
//    The next page again, awaited on the main actor, vs GRDB's async read.
// 4. One row of a query with no sort descriptors, vs the same SELECT in raw SQL.
// `localcloud-bench seed` only fills a container (SeedCommand.swift); `decode` a remote page decoded on
// the client (DecodeBenchmark.swift); `notifications` measures push
// between processes, `push` the server's SSE push over the network (PushBenchmark.swift).
// Queries run in alternating blocks of consecutive calls per side (10 rounds of --pages/10), off
// the main actor except where said.
import Foundation
import GRDB
import LocalCloud

typealias Record = LocalCloud.Record

struct Options {
    var records = 100_000
    var single = 2_000
    var pages = 500
    var dataDirectory: URL?
}

/// A subcommand's error is printed with its cause (a schema file not found from this directory, a
/// database that refused), not raised at top level, where Swift stops with a crash report.
func runSubcommand(_ run: ([String]) async throws -> Void) async -> Never {
    do {
        try await run(Array(CommandLine.arguments.dropFirst(2)))
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("localcloud-bench \(CommandLine.arguments[1]): \(error)\n".utf8))
        exit(1)
    }
}

switch CommandLine.arguments.dropFirst().first {
case "notifications": await runSubcommand(NotificationBenchmark.run)
case "push-node": await runSubcommand(PushBenchmark.runNode)
case "push": await runSubcommand(PushBenchmark.run)
case "remote": await runSubcommand(RemoteBenchmark.run)
case "decode": await runSubcommand(DecodeBenchmark.run)
case "sharing": await runSubcommand(SharingBenchmark.run)
case "seed": await runSubcommand(SeedCommand.run)
default: break
}

var options = Options()
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let flag = arguments.next() {
    let value = arguments.next() ?? ""
    switch flag {
    case "--records": options.records = Int(value) ?? options.records
    case "--single": options.single = Int(value) ?? options.single
    case "--pages": options.pages = Int(value) ?? options.pages
    case "--data-dir": options.dataDirectory = URL(fileURLWithPath: value, isDirectory: true)
    default:
        print("usage: localcloud-bench [--records N] [--single N] [--pages N] [--data-dir DIR]")
        exit(2)
    }
}

let directory = options.dataDirectory ?? URL(fileURLWithPath: NSTemporaryDirectory())
    .appendingPathComponent("localcloud-bench-\(UUID().uuidString)", isDirectory: true)
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { if options.dataDirectory == nil { try? FileManager.default.removeItem(at: directory) } }

let container = Container(configuration: .init(containerIdentifier: "iCloud.Bench", dataDirectory: directory, user: "bench"))
let database = container.publicCloudDatabase
// The indexes FoodPin's schema gives Restaurant: without them the Discover query fails, as in CloudKit.
let benchSchema = try LocalCloud.Schema(ckdb: """
    DEFINE SCHEMA
    RECORD TYPE Restaurant (
        "___createTime" TIMESTAMP SORTABLE, "___recordID" REFERENCE QUERYABLE,
        name STRING, type STRING, location STRING, phone STRING, description STRING SEARCHABLE,
        GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world"
    );
    """)
/// Through a function: top-level code resolves to the blocking overload.
func importSchema(_ schema: LocalCloud.Schema, into container: Container) async throws {
    try await container.importSchema(schema)
}
try await importSchema(benchSchema, into: container)
let types = BenchRestaurant.types

func makeRecord(_ i: Int) -> Record { BenchRestaurant.record(i) }

func fieldsJSON(_ i: Int) -> String {
    // The same fields LocalCloud stores, in its stored JSON shape.
    """
    {"description":{"t":"string","v":"A well-liked place, number \(i), known for its coffee and cakes."},\
    "location":{"t":"string","v":"\(i % 90) Queen's Road Central, Hong Kong"},"name":{"t":"string","v":"Restaurant \(i)"},\
    "phone":{"t":"string","v":"+852 \(20_000_000 + i)"},"type":{"t":"string","v":"\(types[i % types.count])"}}
    """
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

// A pool of our own on the same file, for the raw-SQL side.
let fileURL = directory.appendingPathComponent("iCloud.Bench/development.sqlite")
_ = try await database.records(matching: Query(recordType: "Restaurant", predicate: Predicate(value: true)), resultsLimit: 1)
var rawConfig = Configuration()
rawConfig.busyMode = .timeout(30)
rawConfig.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
let raw = try DatabasePool(path: fileURL.path, configuration: rawConfig)
try raw.write { db in
    try db.execute(sql: """
        DROP TABLE IF EXISTS raw_records;
        DROP TABLE IF EXISTS raw_fts;
        CREATE TABLE raw_records AS SELECT * FROM records WHERE 0;
        CREATE UNIQUE INDEX raw_records_name ON raw_records (scope, owner, zone, record_name);
        CREATE INDEX raw_records_by_type_created ON raw_records (scope, owner, zone, record_type, created_at DESC, id DESC);
        CREATE VIRTUAL TABLE raw_fts USING fts5 (body, tokenize = 'unicode61 remove_diacritics 2');
        """)
}
func rawInsert(_ db: GRDB.Database, _ i: Int) throws {
    let now = Date().timeIntervalSince1970
    try db.cachedStatement(sql: """
        INSERT INTO raw_records (scope, owner, zone, record_name, record_type, created_at, modified_at, created_by, modified_by, change_tag, fields)
        VALUES (1, '', '_defaultZone', ?, 'Restaurant', ?, ?, '_bench', '_bench', ?, ?)
        """).execute(arguments: [UUID().uuidString, now, now, String(UInt64.random(in: 1...UInt64.max), radix: 36), fieldsJSON(i)])
    try db.cachedStatement(sql: "INSERT INTO raw_fts (rowid, body) VALUES (?, ?)")
                          .execute(arguments: [db.lastInsertedRowID, [
                              "A well-liked place, number \(i), known for its coffee and cakes.",
                              "\(i % 90) Queen's Road Central, Hong Kong", "Restaurant \(i)", "+852 \(20_000_000 + i)",
                              types[i % types.count],
                          ].joined(separator: "\n")])
    try db.cachedStatement(sql: "INSERT INTO change_log (scope, owner, zone, record_name, record_type, kind, at) VALUES (1, '', '_defaultZone', 'raw', 'Restaurant', 'created', ?)")
        .execute(arguments: [now])
}

var report: [(String, String, String, String)] = []
@MainActor func row(_ name: String, _ ours: String, _ raw: String, _ ratio: String) {
    report.append((name, ours, raw, ratio))
    print("\(name): LocalCloud \(ours) | raw SQL \(raw) | \(ratio)")
}

// 1. Single saves.
var clock = ContinuousClock.now
for i in 0..<options.single { _ = try await database.save(makeRecord(i)) }
let singleOurs = Double(options.single) / seconds(ContinuousClock.now - clock)
clock = ContinuousClock.now
for i in 0..<options.single {
    try raw.writeWithoutTransaction { db in try db.inTransaction(.immediate) { try rawInsert(db, i); return .commit } }
}
let singleRaw = Double(options.single) / seconds(ContinuousClock.now - clock)
row("Single saves (records/s)", String(format: "%.0f", singleOurs), String(format: "%.0f", singleRaw), String(format: "%.2f× raw", singleOurs / singleRaw))

// 2. Batched saves, 400 per batch, filling the container.
let remaining = max(0, options.records - options.single)
clock = ContinuousClock.now
var start = options.single
while start < options.single + remaining {
    let end = min(start + 400, options.single + remaining)
    let (saves, _) = try await database.modifyRecords(saving: (start..<end).map(makeRecord), deleting: [])
    for (_, result) in saves { _ = try result.get() }
    start = end
}
let batchedOurs = Double(remaining) / seconds(ContinuousClock.now - clock)
clock = ContinuousClock.now
start = 0
while start < remaining {
    let end = min(start + 400, remaining)
    try raw.writeWithoutTransaction { db in
        try db.inTransaction(.immediate) {
            for i in start..<end { try rawInsert(db, i) }
            return .commit
        }
    }
    start = end
}
let batchedRaw = Double(remaining) / seconds(ContinuousClock.now - clock)
row("Batched saves, 400/batch (records/s)", String(format: "%.0f", batchedOurs), String(format: "%.0f", batchedRaw),
    String(format: "%.2f× raw", batchedOurs / batchedRaw))

// 3. Discover: first page and next page, over the records LocalCloud stored.
let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
let desiredKeys = ["name", "type", "location"]
enum DiscoverSQL {
    static let first = """
    SELECT id, record_name, created_at, json_extract(fields, '$."name".v'), json_extract(fields, '$."type".v'),
           json_extract(fields, '$."location".v')
    FROM records WHERE scope = 1 AND owner = '' AND zone = '_defaultZone' AND record_type = 'Restaurant'
    ORDER BY created_at DESC, id DESC LIMIT 50
    """
    static let next = """
    SELECT id, record_name, created_at, json_extract(fields, '$."name".v'), json_extract(fields, '$."type".v'),
           json_extract(fields, '$."location".v')
    FROM records WHERE scope = 1 AND owner = '' AND zone = '_defaultZone' AND record_type = 'Restaurant'
      AND (created_at, id) < (?, ?)
    ORDER BY created_at DESC, id DESC LIMIT 50
    """
}
struct RawRestaurant: Sendable { var id: Int64; var name: String; var createdAt: Double; var fields: [String?] }
nonisolated func rawPage(_ db: GRDB.Database, after: (Double, Int64)?) throws -> [RawRestaurant] {
    let statement = try db.cachedStatement(sql: after == nil ? DiscoverSQL.first : DiscoverSQL.next)
    let arguments: StatementArguments = after.map { [$0.0, $0.1] } ?? []
    return try Row.fetchAll(statement, arguments: arguments).map { row in
        RawRestaurant(id: row[0], name: row[1], createdAt: row[2], fields: [row[3], row[4], row[5]])
    }
}
/// The raw side reads synchronously on the calling thread, GRDB's cheapest way in.
nonisolated func rawReadPage(_ pool: DatabasePool, after: (Double, Int64)?) throws -> [RawRestaurant] {
    try pool.read { db in try rawPage(db, after: after) }
}

/// GRDB's async read: runs on its reader queue and resumes the caller, like a LocalCloud call.
nonisolated func rawReadPageAsync(_ pool: DatabasePool, after: (Double, Int64)?) async throws -> [RawRestaurant] {
    let page: @Sendable (GRDB.Database) throws -> [RawRestaurant] = { db in try rawPage(db, after: after) }
    return try await pool.read(page)
}

// Each side makes its calls in blocks of consecutive calls, the blocks alternating. Timed one
// right after the other, each side paid for the other's cache effects: the raw query took
// 0.41–0.45 ms right after a LocalCloud call and 0.23 ms in a run of its own.
let rounds = 10
let perBlock = max(1, options.pages / rounds)

/// `perBlock` calls of `call` in a row, each timed, and the first call's result. Each call
/// resumes on the caller's actor (`isolation`), as an app awaiting LocalCloud does.
func timeCalls<T: Sendable>(_ call: @Sendable () async throws -> T,
                            isolation: isolated (any Actor)? = #isolation) async throws -> ([Double], T?) {
    var times: [Double] = [], first: T?
    for _ in 0..<perBlock {
        let start = ContinuousClock.now
        let result = try await call()
        times.append(seconds(ContinuousClock.now - start))
        if first == nil { first = result }
    }
    return (times, first)
}

/// One block of calls: off the main actor unless `onMainActor`. Apps and servers call LocalCloud
/// from background tasks; resuming onto the main actor adds a wakeup of the main thread to every call.
@MainActor func block<T: Sendable>(_ call: @escaping @Sendable () async throws -> T, onMainActor: Bool) async throws -> ([Double], T?) {
    if onMainActor { return try await timeCalls(call) }
    return try await Task.detached { try await timeCalls(call) }.value
}

/// Both sides' timings over `rounds` alternating blocks, and each side's first result.
@MainActor func alternate<Ours: Sendable, Raw: Sendable>(
    onMainActor: Bool = false, ours: @escaping @Sendable () async throws -> Ours, raw: @escaping @Sendable () async throws -> Raw
) async throws -> (ours: [Double], raw: [Double], first: (Ours, Raw)) {
    var oursTimes: [Double] = [], rawTimes: [Double] = [], firstOurs: Ours?, firstRaw: Raw?
    // One untimed call each first, so that neither side's first block pays for a cold cache.
    _ = try await ours()
    _ = try await raw()
    for _ in 0..<rounds {
        let (o, fo) = try await block(ours, onMainActor: onMainActor)
        let (r, fr) = try await block(raw, onMainActor: onMainActor)
        oursTimes += o
        rawTimes += r
        firstOurs = firstOurs ?? fo
        firstRaw = firstRaw ?? fr
    }
    guard let firstOurs, let firstRaw else { fatalError("no calls were made") }
    return (oursTimes, rawTimes, (firstOurs, firstRaw))
}

let ms = { (v: Double) in String(format: "%.3f ms", v * 1000) }
@MainActor func report(_ name: String, _ times: (ours: [Double], raw: [Double]), rawNote: String = "") {
    row("\(name), median", ms(median(times.ours)), ms(median(times.raw)) + rawNote,
        String(format: "%.2f× raw", median(times.ours) / median(times.raw)))
    row("\(name), p99", ms(percentile(times.ours, 0.99)), ms(percentile(times.raw, 0.99)) + rawNote, "")
}

let pageDatabase = database, pageQuery = query, pageKeys = desiredKeys, rawPool = raw
let firstPage = try await alternate(
    ours: { try await pageDatabase.records(matching: pageQuery, desiredKeys: pageKeys, resultsLimit: 50) },
    raw: { try rawReadPage(rawPool, after: nil) })
guard let cursor = firstPage.first.0.queryCursor, let last = firstPage.first.1.last else { fatalError("expected a second page") }
precondition(firstPage.first.0.matchResults.map(\.0.recordName) == firstPage.first.1.map(\.name), "first pages differ")
report("Discover first page, 50 rows", (firstPage.ours, firstPage.raw))

let anchor = (last.createdAt, last.id)
let nextPage = try await alternate(
    ours: { try await pageDatabase.records(continuingMatchFrom: cursor, desiredKeys: pageKeys, resultsLimit: 50) },
    raw: { try rawReadPage(rawPool, after: anchor) })
precondition(nextPage.first.0.matchResults.map(\.0.recordName) == nextPage.first.1.map(\.name), "second pages differ")
report("Discover next page, 50 rows", (nextPage.ours, nextPage.raw))

// 3b. The same next page awaited on the main actor, as a UI would: every await then resumes on
// the main thread. The raw counterpart is GRDB's own async read, which resumes the same way.
let mainActorPage = try await alternate(
    onMainActor: true,
    ours: { try await pageDatabase.records(continuingMatchFrom: cursor, desiredKeys: pageKeys, resultsLimit: 50) },
    raw: { try await rawReadPageAsync(rawPool, after: anchor) })
report("Next page awaited on the main actor", (mainActorPage.ours, mainActorPage.raw), rawNote: " (async read)")

// 4. One row with no sort descriptors: pages in row-ID order, which `records_by_type` serves.
let unsorted = Query(recordType: "Restaurant", predicate: Predicate(value: true))
let oneSQL = """
    SELECT id, record_name, created_at, fields FROM records
    WHERE scope = 1 AND owner = '' AND zone = '_defaultZone' AND record_type = 'Restaurant' ORDER BY id LIMIT 1
    """
let oneRow = try await alternate(
    ours: { try await pageDatabase.records(matching: unsorted, resultsLimit: 1).matchResults.count },
    raw: { try rawPool.read { db in try Row.fetchAll(db.cachedStatement(sql: oneSQL)).count } })
precondition(oneRow.first == (1, 1), "expected one record")
report("One row, no sort descriptors", (oneRow.ours, oneRow.raw))

let total = try raw.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM records") ?? 0 }
print("\nRecords in the container: \(total)")
print("\n| Measure | LocalCloud | Raw SQL (GRDB) | Ratio |\n|---|---|---|---|")
for (name, ours, rawValue, ratio) in report { print("| \(name) | \(ours) | \(rawValue) | \(ratio) |") }
