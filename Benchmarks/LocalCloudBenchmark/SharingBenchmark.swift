// `localcloud-bench sharing`: what the share rules cost on the shared database, and how fast an
// owner's commit reaches a participant.
//
//   swift run -c release localcloud-bench sharing [--entries 2000] [--pages 200] [--saves 200] [--poll-ms 100]
//
// alice keeps a list (a root record and --entries Restaurant entries below it through `parent`) in
// a zone of her private database and shares it read-write with bob, who accepts. Then:
// 1. The Discover-sized page (50 rows, creationDate descending, desiredKeys name/type/location) of
//    the list as alice in her private database vs as bob in his shared database, in alternating
//    blocks of --pages/10 calls; the ratio is the cost of the access checks.
// 2. bob's database subscription in the shared database; alice saves --saves entries one at a
//    time; latency is the change's commit timestamp to the notification arriving (same process,
//    so commits wake the watcher directly, as they do on `localcloud serve`).
import Foundation
import LocalCloud
import Synchronization

enum SharingBenchmark {
    static func run(_ arguments: [String]) async throws {
        var entries = 2_000
        var pages = 200
        var saves = 200
        var pollMilliseconds = 100
        var iterator = arguments.makeIterator()
        while let flag = iterator.next() {
            let value = iterator.next() ?? ""
            switch flag {
            case "--entries": entries = Int(value) ?? entries
            case "--pages": pages = max(10, Int(value) ?? pages)
            case "--saves": saves = Int(value) ?? saves
            case "--poll-ms": pollMilliseconds = Int(value) ?? pollMilliseconds
            default:
                print("usage: localcloud-bench sharing [--entries N] [--pages N] [--saves N] [--poll-ms MS]")
                exit(2)
            }
        }
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("localcloud-bench-sharing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let alice = Container(configuration: .init(containerIdentifier: "iCloud.Bench", dataDirectory: directory, user: "alice"))
        let bob = Container(configuration: .init(containerIdentifier: "iCloud.Bench", dataDirectory: directory, user: "bob"))
        try await alice.importSchema(try LocalCloud.Schema(ckdb: """
            DEFINE SCHEMA
            RECORD TYPE Restaurant (
                "___createTime" TIMESTAMP SORTABLE, "___recordID" REFERENCE QUERYABLE,
                name STRING, type STRING, location STRING, phone STRING, description STRING SEARCHABLE
            );
            RECORD TYPE List ("___recordID" REFERENCE QUERYABLE, name STRING);
            """))

        // The list and its entries.
        let privateDB = alice.privateCloudDatabase
        let zone = try await privateDB.save(RecordZone(zoneName: "Lists")).zoneID
        let list = Record(recordType: "List", recordID: Record.ID(recordName: "friday", zoneID: zone))
        list["name"] = "Friday"
        _ = try await privateDB.save(list)
        var next = 0
        while next < entries {
            let batch = (next..<min(entries, next + 400)).map { i -> Record in
                let source = BenchRestaurant.record(i)
                let entry = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "entry-\(i)", zoneID: zone))
                for key in source.allKeys() { entry[key] = source[key] }
                entry.setParent(list.recordID)
                return entry
            }
            _ = try await privateDB.modifyRecords(saving: batch, deleting: [])
            next += batch.count
        }
        let root = try await privateDB.record(for: list.recordID)
        let share = Share(rootRecord: root)
        var participant = try await alice.shareParticipant(forUserRecordID: Record.ID(recordName: "_bob"))
        participant.permission = .readWrite
        share.addParticipant(participant)
        let (saved, _) = try await privateDB.modifyRecords(saving: [root, share], deleting: [])
        guard let url = (try saved[share.recordID]?.get() as? Share)?.url else {
            print("the share was not saved")
            exit(1)
        }
        try await bob.accept(try await bob.shareMetadata(for: url))
        let sharedZone = RecordZone.ID(zoneName: "Lists", ownerName: "_alice")

        // 1. The page as the owner vs as the participant.
        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
        let keys = ["name", "type", "location"]
        func page(_ db: Database, _ zoneID: RecordZone.ID) async throws -> Int {
            let result = try await db.records(matching: query, inZoneWith: zoneID, desiredKeys: keys, resultsLimit: 50)
            return result.matchResults.count
        }
        guard try await page(privateDB, zone) == 50, try await page(bob.sharedCloudDatabase, sharedZone) == 50 else {
            print("a page did not hold 50 rows")
            exit(1)
        }
        var owner: [Double] = []
        var shared: [Double] = []
        for _ in 0..<10 {
            for _ in 0..<(pages / 10) { owner.append(try await timed { _ = try await page(privateDB, zone) }) }
            for _ in 0..<(pages / 10) { shared.append(try await timed { _ = try await page(bob.sharedCloudDatabase, sharedZone) }) }
        }
        let ownerMedian = percentile(owner.sorted(), 0.5)
        let sharedMedian = percentile(shared.sorted(), 0.5)
        print("sharing: a \(entries)-entry shared list, 50-row Discover page, \(pages) pages per side")
        print(String(format: "  owner (private database):        p50 %.3f ms, p99 %.3f ms", ownerMedian, percentile(owner.sorted(), 0.99)))
        print(String(format: "  participant (shared database):   p50 %.3f ms, p99 %.3f ms", sharedMedian, percentile(shared.sorted(), 0.99)))
        print(String(format: "  participant / owner (p50): %.2fx (goal <= 1.2x)", sharedMedian / ownerMedian))

        // 2. Owner's commit -> participant's notification.
        _ = try await bob.sharedCloudDatabase.save(DatabaseSubscription(subscriptionID: "bench-shared"))
        let latencies = Mutex<[Double]>([])
        var notifications = bob.notifications(since: try await bob.currentChangeToken())
        notifications.pollInterval = .milliseconds(pollMilliseconds)
        let listener = Task.detached {
            for await notification in notifications where notification.modifiedBy?.recordName == "_alice" {
                latencies.withLock { $0.append(Date().timeIntervalSince(notification.changeDate)) }
            }
        }
        for i in 0..<saves {
            let entry = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "new-\(i)", zoneID: zone))
            entry["name"] = "New \(i)"
            entry.setParent(list.recordID)
            _ = try await privateDB.save(entry)
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while latencies.withLock({ $0.count }) < saves && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        listener.cancel()
        let sorted = latencies.withLock { $0 }.sorted().map { $0 * 1000 }
        print(String(format: "  owner commit -> participant notification: %d/%d delivered, p50 %.1f ms, p99 %.1f ms, max %.1f ms (goal p99 <= 250 ms)",
                     sorted.count, saves, percentile(sorted, 0.5), percentile(sorted, 0.99), percentile(sorted, 1.0)))
        exit(sorted.count == saves ? 0 : 1)
    }

    static func timed(_ body: () async throws -> Void) async throws -> Double {
        let start = ContinuousClock.now
        try await body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, max(0, Int((Double(sorted.count) * p).rounded(.up)) - 1))]
    }
}
