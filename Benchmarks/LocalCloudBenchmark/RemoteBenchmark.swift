// `localcloud-bench remote`: the remote container (LocalCloud's RemoteStore over libcurl) against a
// real server on loopback.
//
//   swift run -c release localcloud-bench remote [--records 10000] [--pages 200] [--saves 200]
//
// Starts the real server (LocalCloudServer, fixed bench credentials) on a free loopback port over
// a data directory filled with --records restaurants, then through the public API only:
// 1. the Discover first page (Restaurant, creationDate descending, 50 rows, desiredKeys
//    name/type/location) from a remote container, against an embedded container on the same file;
// 2. commit on one "machine" to the notification on the other: bob's remote container saves,
//    alice's remote container receives it through `container.notifications` (the banner's
//    source), one save at a time (20 unmeasured warm-up saves first);
// 3. launch to the first rows, whole `foodpin list --limit 50` processes (the binary next to this
//    one): against the server, then with the server stopped, from the cache; and in process, a new
//    container (as at launch) drawing the first page from its cache;
// 4. 200 adds queued offline, then the server back on the same port: the outbox's upload rate.
import Foundation
import LocalCloud
import LocalCloudServer
import Synchronization

enum RemoteBenchmark {
    static func run(_ arguments: [String]) async throws {
        var records = 10_000
        var pages = 200
        var saves = 200
        var iterator = arguments.makeIterator()
        while let flag = iterator.next() {
            let value = iterator.next() ?? ""
            switch flag {
            case "--records": records = Int(value) ?? records
            case "--pages": pages = max(1, Int(value) ?? pages)
            case "--saves": saves = max(1, Int(value) ?? saves)
            default:
                print("usage: localcloud-bench remote [--records N] [--pages N] [--saves N]")
                exit(2)
            }
        }
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("localcloud-bench-remote-\(UUID().uuidString)")
        let serverData = root.appendingPathComponent("server"), clientData = root.appendingPathComponent("client")
        try FileManager.default.createDirectory(at: serverData, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let containerID = "iCloud.Bench"
        let embedded = Container(configuration: .init(containerIdentifier: containerID, dataDirectory: serverData, user: "seeder"))
        _ = try await embedded.importSchema(LocalCloud.Schema(ckdb: String(contentsOfFile: "Assets/FoodPin.ckdb", encoding: .utf8)))
        var next = 0
        while next < records {
            let batch = (next..<min(records, next + 400)).map(BenchRestaurant.record)
            _ = try await embedded.publicCloudDatabase.modifyRecords(saving: batch, deleting: [])
            next += batch.count
        }

        let (urls, listening) = AsyncStream.makeStream(of: String.self)
        // Stopped gracefully: a background client (the SSE stream, a catch-up) may be connecting then.
        let (stops, stopper) = AsyncStream.makeStream(of: Void.self)
        let server = Task {
            try await BenchmarkServer.run(dataDirectory: serverData, onListening: { url in listening.yield(url) },
                                          until: { for await _ in stops { return } })
        }
        defer { stopper.yield() }
        guard let base = await urls.first(where: { _ in true }), let baseURL = URL(string: base) else { fatalError("the server did not start") }
        func remote(_ user: String) -> Container {
            var configuration = Container.Configuration(containerIdentifier: containerID, dataDirectory: clientData, user: user)
            configuration.serverURL = baseURL
            configuration.apiToken = BenchmarkServer.apiToken
            configuration.webAuthToken = "user-\(user)"
            return Container(configuration: configuration)
        }

        // 1. The first page, alternating blocks of remote and embedded calls.
        let alice = remote("alice")
        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
        let keys = ["name", "type", "location"]
        var remoteTimes: [Double] = [], embeddedTimes: [Double] = []
        for round in 0..<10 {
            for (database, isRemote) in [(alice.publicCloudDatabase, true), (embedded.publicCloudDatabase, false)] {
                for _ in 0..<max(1, pages / 10) {
                    let started = ContinuousClock.now
                    let page = try await database.records(matching: query, desiredKeys: keys, resultsLimit: 50)
                    let elapsed = PushBenchmark.milliseconds(ContinuousClock.now - started)
                    precondition(page.matchResults.count == min(50, records), "a short page")
                    if round > 0 { if isRemote { remoteTimes.append(elapsed) } else { embeddedTimes.append(elapsed) } }
                }
            }
        }
        print("remote: \(records) restaurants, the server on loopback (in this process), libcurl client")
        PushBenchmark.report("first page, remote container", remoteTimes)
        PushBenchmark.report("first page, embedded container, same file", embeddedTimes)

        // 2. Commit on bob's machine → notification on alice's.
        let bob = remote("bob")
        _ = try await alice.publicCloudDatabase.save(QuerySubscription(
            recordType: "Restaurant", predicate: Predicate(value: true), subscriptionID: "bench", options: [.firesOnRecordCreation]))
        let (arrivals, arrived) = AsyncStream.makeStream(of: (name: String, at: ContinuousClock.Instant).self)
        let received = Atomic<Int>(0)
        let listener = Task {
            for await notification in alice.notifications {
                received.add(1, ordering: .relaxed)
                if let name = notification.recordID?.recordName { arrived.yield((name, ContinuousClock.now)) }
            }
        }
        defer { listener.cancel() }
        // The stream opens in the background: save until a first event shows it is open (unmeasured).
        for attempt in 0..<100 where received.load(ordering: .relaxed) == 0 {
            _ = try await bob.publicCloudDatabase.save(BenchRestaurant.record(records + attempt))
            let deadline = ContinuousClock.now + .milliseconds(200)
            while received.load(ordering: .relaxed) == 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        }
        precondition(received.load(ordering: .relaxed) > 0, "no notification arrived")
        var events = arrivals.makeAsyncIterator()
        var latencies: [Double] = []
        for index in 0..<(20 + saves) {
            let record = LocalCloud.Record(recordType: "Restaurant", recordID: LocalCloud.Record.ID(recordName: "remote-push-\(index)"))
            record["name"] = "Remote push \(index)"
            let started = ContinuousClock.now
            _ = try await bob.publicCloudDatabase.save(record)
            while let event = await events.next() {
                guard event.name == record.recordID.recordName else { continue }
                if index >= 20 { latencies.append(PushBenchmark.milliseconds(event.at - started)) }
                break
            }
        }
        PushBenchmark.report("bob's save → alice's notification", latencies)
        listener.cancel()

        // 3. Launch to the first rows: whole `foodpin list` processes, online then from the cache.
        let foodpin = LaunchBenchmark(clientData: clientData, root: root, containerID: containerID, baseURL: baseURL)
        let online = try foodpin.measure(runs: 20)
        stopper.yield()
        _ = await server.result
        let offline = try foodpin.measure(runs: 20)
        if let online, let offline {
            PushBenchmark.report("launch → first 50 rows, whole foodpin process, from the server", online)
            PushBenchmark.report("launch → first 50 rows, whole foodpin process, server down: from the cache", offline)
        }
        // In process: a new container (a new process's) drawing the first page from its cache.
        var launches: [Double] = []
        for _ in 0..<50 {
            let started = ContinuousClock.now
            let page = try await remote("alice").publicCloudDatabase.records(matching: query, desiredKeys: keys, resultsLimit: 50)
            launches.append(PushBenchmark.milliseconds(ContinuousClock.now - started))
            precondition(page.matchResults.count == 50, "the cache did not answer")
        }
        PushBenchmark.report("launch offline → first 50 rows from the cache", launches)

        // 4. The outbox: adds queued offline, then uploaded when the server is back.
        let queued = 200
        let offlineBob = remote("bob")
        for index in 0..<queued {
            let record = LocalCloud.Record(recordType: "Restaurant", recordID: LocalCloud.Record.ID(recordName: "queued-\(index)"))
            record["name"] = "Queued \(index)"
            _ = try await offlineBob.publicCloudDatabase.save(record)
        }
        precondition(offlineBob.pendingChanges().count == queued, "the adds were not queued")
        let (again, relistening) = AsyncStream.makeStream(of: String.self)
        let port = baseURL.port ?? 0
        let (restops, restopper) = AsyncStream.makeStream(of: Void.self)
        let restarted = Task {
            try await BenchmarkServer.run(dataDirectory: serverData, port: port, onListening: { url in relistening.yield(url) },
                                          until: { for await _ in restops { return } })
        }
        defer { restopper.yield() }
        guard await again.first(where: { _ in true }) != nil else { fatalError("the server did not come back") }
        // A new process's container: its store finds the outbox and starts uploading at once.
        let started = ContinuousClock.now
        let uploader = remote("bob")
        while !uploader.pendingChanges().isEmpty { try await Task.sleep(for: .milliseconds(2)) }
        let seconds = PushBenchmark.milliseconds(ContinuousClock.now - started) / 1000
        print(String(format: "  outbox: %d adds queued offline uploaded in %.2f s after the server came back: %.0f adds/s",
                     queued, seconds, Double(queued) / seconds))
        restopper.yield()
        _ = await restarted.result
        exit(0)
    }
}
