// `localcloud-bench decode`: a remote Discover page decoded on the client, today's parser against
// Foundation's JSONDecoder in the same run.
//
//   swift run -c release localcloud-bench decode [--rows 50] [--runs 2000]
//
// The page is what the server answers for the Discover query (Restaurant, creationDate
// descending, desiredKeys name/type/location): --rows restaurants saved in an embedded container,
// queried back and written by the server's own record encoder (`Record.webServicesJSON`) with a
// continuation marker. Each measure turns the page's bytes into `[Record]`, as `RemoteStore` does:
// 1. `JSONValue.parse` (LocalCloud's JSONParser), then the wire records into `Record`s;
// 2. the same through `JSONDecoder().decode(JSONValue.self)` (the path before the one JSON model);
// and the parse alone for each. Alternating blocks of consecutive calls (10 rounds of --runs/10),
// the first round unmeasured.
import Foundation
import LocalCloud

enum DecodeBenchmark {
    static func run(_ arguments: [String]) async throws {
        var rows = 50
        var runs = 2000
        var iterator = arguments.makeIterator()
        while let flag = iterator.next() {
            let value = iterator.next() ?? ""
            switch flag {
            case "--rows": rows = max(1, Int(value) ?? rows)
            case "--runs": runs = max(10, Int(value) ?? runs)
            default:
                print("usage: localcloud-bench decode [--rows N] [--runs N]")
                exit(2)
            }
        }
        let page = try await discoverPage(rows: rows)
        let zone = RecordZone.ID.default
        // Both paths must read the same records before either is timed.
        let ours = try RemoteWire.decodePage(page, zoneID: zone)
        let theirs = try RemoteWire.decodePageWithJSONDecoder(page, zoneID: zone)
        precondition(ours.count == rows && theirs.count == rows, "a short page")
        for (a, b) in zip(ours, theirs) {
            precondition(a.recordID == b.recordID && a.snapshot.fields == b.snapshot.fields && a.creationDate == b.creationDate
                         && a.snapshot.fields.count == 3,
                         "the two decoders disagree on \(a.recordID.recordName)")
        }

        let paths: [(String, () throws -> Int)] = [
            ("page → records, JSONParser (JSONValue.parse)", { try RemoteWire.decodePage(page, zoneID: zone).count }),
            ("page → records, JSONDecoder (before)", { try RemoteWire.decodePageWithJSONDecoder(page, zoneID: zone).count }),
            ("parse only, JSONParser", { try JSONValue.parse(page).objectValue?.count ?? 0 }),
            ("parse only, JSONDecoder", { try JSONDecoder().decode(JSONValue.self, from: Data(page)).objectValue?.count ?? 0 }),
        ]
        var times = Array(repeating: [Double](), count: paths.count)
        var sink = 0
        for round in 0..<10 {
            for (index, path) in paths.enumerated() {
                for _ in 0..<(runs / 10) {
                    let started = ContinuousClock.now
                    sink &+= try path.1()
                    let elapsed = PushBenchmark.milliseconds(ContinuousClock.now - started)
                    if round > 0 { times[index].append(elapsed) }
                }
            }
        }
        print(String(format: "decode: a %d-row Discover page from the server, %.1f KB, %d runs per path (checksum %d)",
                     rows, Double(page.count) / 1024, runs, sink))
        for (index, path) in paths.enumerated() { PushBenchmark.report(path.0, times[index]) }
        let ratio = median(times[1]) / max(median(times[0]), 1e-9)
        print(String(format: "  page → records: JSONParser %.2fx faster than JSONDecoder (median)", ratio))
        exit(0)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// The bytes the server answers for the Discover query over `rows` restaurants.
    static func discoverPage(rows: Int) async throws -> [UInt8] {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("localcloud-bench-decode-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let container = Container(configuration: .init(containerIdentifier: "iCloud.Bench", dataDirectory: directory, user: "seeder"))
        _ = try await container.importSchema(LocalCloud.Schema(ckdb: String(contentsOfFile: "Assets/FoodPin.ckdb", encoding: .utf8)))
        _ = try await container.publicCloudDatabase.modifyRecords(saving: (0..<rows).map(BenchRestaurant.record), deleting: [])
        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
        let page = try await container.publicCloudDatabase.records(matching: query, desiredKeys: ["name", "type", "location"], resultsLimit: rows)
        let records = try page.matchResults.map { try $0.1.get().webServicesJSON(assets: .none) }
        let answer = JSONValue.object([
            "records": .array(records),
            "continuationMarker": .string("eyJhZnRlciI6eyJjcmVhdGVkIjoxNzY3MjI1NjAwMDAwLCJyZWNvcmROYW1lIjoiZjAwZCJ9fQ"),
        ])
        return answer.bytes
    }
}
