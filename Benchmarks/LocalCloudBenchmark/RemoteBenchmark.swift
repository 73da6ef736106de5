// `localcloud-bench remote`: the remote container against the embedded store, on the same data.
//
//   localcloud-bench remote --server URL --api-token T --alice-token W --bob-token W --data-dir SERVER_DATA
//                           [--container iCloud.FoodPin] [--pages 200] [--saves 200]
//
// The server (`localcloud serve`, a separate process) runs over SERVER_DATA. In one run:
// 1. The Discover page (Restaurant, creationDate descending, 50 rows, desiredKeys name/type/location):
//    a remote container over loopback vs the embedded store opened on SERVER_DATA itself, in
//    alternating blocks; p50 and p99 of each.
// 2. Commit on one machine to the notification on the other: bob's remote container saves one
//    restaurant at a time; alice's remote container (its own cache directory) holds
//    `container.notifications` for a query subscription; from just before bob's save to the
//    arrival of its notification (what raises FoodPin's banner). p50 and p99.
import Foundation
import LocalCloud
import Synchronization

enum RemoteBenchmark {
    static func run(_ arguments: [String]) async throws {
        var values: [String: String] = ["--container": "iCloud.FoodPin", "--pages": "200", "--saves": "200"]
        var iterator = arguments.makeIterator()
        while let flag = iterator.next() {
            guard ["--server", "--api-token", "--alice-token", "--bob-token", "--data-dir", "--container", "--pages", "--saves"].contains(flag),
                  let value = iterator.next() else { usage() }
            values[flag] = value
        }
        guard let server = values["--server"].flatMap(URL.init(string:)), let apiToken = values["--api-token"],
              let aliceToken = values["--alice-token"], let bobToken = values["--bob-token"],
              let serverData = values["--data-dir"], let containerID = values["--container"],
              let pages = values["--pages"].flatMap(Int.init), let saves = values["--saves"].flatMap(Int.init) else { usage() }

        let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("localcloud-bench-remote-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        func remote(_ name: String, token: String) -> Container {
            var configuration = Container.Configuration(
                containerIdentifier: containerID, dataDirectory: scratch.appendingPathComponent(name, isDirectory: true), user: name)
            configuration.serverURL = server
            configuration.apiToken = apiToken
            configuration.webAuthToken = token
            return Container(configuration: configuration)
        }
        let alice = remote("alice", token: aliceToken)
        let bob = remote("bob", token: bobToken)
        let embedded = Container(configuration: .init(
            containerIdentifier: containerID, dataDirectory: URL(fileURLWithPath: serverData, isDirectory: true), user: "bench"))

        // 1. The Discover page, in alternating blocks of consecutive calls.
        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
        func page(_ container: Container) async throws -> Double {
            let start = ContinuousClock.now
            let (matches, _) = try await container.publicCloudDatabase.records(
                matching: query, desiredKeys: ["name", "type", "location"], resultsLimit: 50)
            guard matches.count == 50 else { throw CloudError(.internalError, "a Discover page had \(matches.count) rows, not 50") }
            return (ContinuousClock.now - start) / .milliseconds(1)
        }
        _ = try await page(alice)
        _ = try await page(embedded)
        var remoteTimes: [Double] = [], embeddedTimes: [Double] = []
        for _ in 0..<10 {
            for _ in 0..<max(1, pages / 10) { remoteTimes.append(try await page(alice)) }
            for _ in 0..<max(1, pages / 10) { embeddedTimes.append(try await page(embedded)) }
        }
        print(String(format: "| Discover page, remote container over loopback | %.2f | %.2f |", percentile(remoteTimes, 0.5), percentile(remoteTimes, 0.99)))
        print(String(format: "| Discover page, embedded store | %.2f | %.2f |", percentile(embeddedTimes, 0.5), percentile(embeddedTimes, 0.99)))
        print(String(format: "| → remote / embedded (p50) | %.1f× | |", percentile(remoteTimes, 0.5) / percentile(embeddedTimes, 0.5)))

        // 2. Bob's commit to alice's notification.
        let subscriptionID = "bench-remote-\(UUID().uuidString)"
        _ = try await alice.publicCloudDatabase.save(QuerySubscription(
            recordType: "Restaurant", predicate: Predicate(format: "type == %@", "Remote Bench"),
            subscriptionID: subscriptionID, options: [.firesOnRecordCreation]))
        let arrivals = Mutex<[String: ContinuousClock.Instant]>([:])
        let listener = Task {
            for await notification in alice.notifications where notification.subscriptionID == subscriptionID {
                guard let name = notification.recordID?.recordName else { continue }
                arrivals.withLock { $0[name] = $0[name] ?? .now }
            }
        }
        defer { listener.cancel() }
        var latencies: [Double] = []
        for i in -5..<saves {
            let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "remote-bench-\(UUID().uuidString)"))
            record["name"] = "Remote bench \(i)"
            record["type"] = "Remote Bench"
            let start = ContinuousClock.now
            _ = try await bob.publicCloudDatabase.save(record)
            let deadline = start + .seconds(i < 0 ? 30 : 10)
            var arrived: ContinuousClock.Instant?
            while arrived == nil && ContinuousClock.now < deadline {
                arrived = arrivals.withLock { $0[record.recordID.recordName] }
                if arrived == nil { try await Task.sleep(for: .microseconds(200)) }
            }
            // The first saves may land before alice's stream is open; those only warm up.
            guard let arrived else {
                if i < 0 { continue }
                throw CloudError(.internalError, "save \(i) was not delivered within 10 s")
            }
            if i >= 0 { latencies.append((arrived - start) / .milliseconds(1)) }
        }
        print(String(format: "| Bob's save → alice's notification (remote containers, %d saves) | %.1f | %.1f |",
                     latencies.count, percentile(latencies, 0.5), percentile(latencies, 0.99)))
        exit(0)
    }

    private static func usage() -> Never {
        print("usage: localcloud-bench remote --server URL --api-token T --alice-token W --bob-token W --data-dir SERVER_DATA [--container ID] [--pages N] [--saves N]")
        exit(2)
    }
}
