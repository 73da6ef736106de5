// `localcloud-bench push`: commit-to-delivery latency of the server's SSE push, over the network.
//
//   swift run -c release localcloud-bench push [--saves 500] [--subscribers 1] [--schema Assets/FoodPin.ckdb]
//   swift run -c release localcloud-bench push --saves 50 --subscribers 1000   # many open screens
//
// Starts the real server (LocalCloudServer, fixed bench credentials) on a free loopback port over a
// fresh data directory. Each of --subscribers users saves a query subscription on Restaurant and
// holds `GET /database/1/…/notifications` open (AsyncHTTPClient, streaming body; nobody polls).
// Bob then saves --saves restaurants one at a time with `records/modify`, each once the previous
// one's event reached every subscriber. Two figures per save, to the last subscriber's event:
// - save → event: from sending bob's request to the event arriving (request, commit, match,
//   delivery: an upper bound on commit → event);
// - commit → event: from the record's `created.timestamp` (taken in the save's transaction, ms
//   resolution, same machine's wall clock) to the event arriving.
// And what the open streams cost the node: its resident memory (VmRSS) and open descriptors
// (/proc/PID/fd) once every subscription is saved but before the first stream opens, and once all
// are open and idle, per stream.
//
// The node runs in a process of its own (this binary as `localcloud-bench push-node DIR URLFILE`),
// so its figures are the node's alone and the clients' parsing does not share its process (it
// still shares the machine's cores). `--in-process` runs both in one process, as before: then the
// figures include the client's side of each stream.
import AsyncHTTPClient
import Foundation
import LocalCloud
import LocalCloudServer
import NIOCore
import NIOHTTP1

enum PushBenchmark {
    /// Every stream holds a connection: a pool wider than AsyncHTTPClient's default 8 per host.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 16_384
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    static func run(_ arguments: [String]) async throws {
        var saves = 500
        var subscribers = 1
        var schemaPath = "Assets/FoodPin.ckdb"
        var inProcess = false
        var iterator = arguments.makeIterator()
        while let flag = iterator.next() {
            if flag == "--in-process" {
                inProcess = true
                continue
            }
            let value = iterator.next() ?? ""
            switch flag {
            case "--saves": saves = Int(value) ?? saves
            case "--subscribers": subscribers = max(1, Int(value) ?? subscribers)
            case "--schema": schemaPath = value
            default:
                print("usage: localcloud-bench push [--saves N] [--subscribers N] [--schema FILE.ckdb] [--in-process]")
                exit(2)
            }
        }
        // The client's own end of every stream needs a descriptor too.
        DescriptorLimit.raiseToHardLimit()
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("localcloud-bench-push-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let containerID = "iCloud.Bench"
        if let schema = try? String(contentsOfFile: schemaPath, encoding: .utf8) {
            let seed = Container(configuration: .init(containerIdentifier: containerID, dataDirectory: directory, user: nil))
            _ = try await seed.importSchema(LocalCloud.Schema(ckdb: schema))
        }

        let base: String
        let nodePID: pid_t
        var node: Process?
        var server: Task<Void, any Error>?
        defer { server?.cancel() }
        if inProcess {
            let (urls, listening) = AsyncStream.makeStream(of: String.self)
            server = Task { try await BenchmarkServer.run(dataDirectory: directory) { url in listening.yield(url) } }
            guard let url = await urls.first(where: { _ in true }) else { fatalError("the server did not start") }
            base = url
            nodePID = getpid()
        } else {
            let (process, url) = try await startNode(dataDirectory: directory)
            node = process
            base = url
            nodePID = process.processIdentifier
        }
        defer { node?.terminate() }
        func url(_ endpoint: String, user: String) -> String {
            "\(base)/database/1/\(containerID)/development/\(endpoint)?ckAPIToken=\(BenchmarkServer.apiToken)&ckWebAuthToken=user-\(user)"
        }

        // Every subscription is saved first: the stored rows (and the page cache they grow) are the
        // users' data, there with or without a screen open; what follows is what open streams cost.
        for subscriber in 0..<subscribers {
            _ = try await post(url("public/subscriptions/modify", user: "reader\(subscriber)"), """
                {"operations": [{"operationType": "create", "subscription": {"subscriptionID": "bench", "subscriptionType": "query",
                  "query": {"recordType": "Restaurant"}, "firesOn": ["create"]}}]}
                """)
        }
        let before = (memory: residentBytes(nodePID), descriptors: openDescriptors(nodePID))
        var streams: [AsyncStream<(name: String, at: ContinuousClock.Instant, wall: Date)>.Iterator] = []
        var readers: [Task<Void, any Error>] = []
        defer { for reader in readers { reader.cancel() } }
        for subscriber in 0..<subscribers {
            let user = "reader\(subscriber)"
            let (arrivals, opened) = try await openStream(url("notifications", user: user), readers: &readers)
            for await _ in opened { break }
            streams.append(arrivals.makeAsyncIterator())
        }

        // Idle streams: the watchers have started (opening a stream returns once the head is written).
        var idle = (memory: residentBytes(nodePID), descriptors: openDescriptors(nodePID))
        for _ in 0..<20 {
            try await Task.sleep(for: .milliseconds(100))  // settling: readers open their connections asynchronously
            idle = (max(idle.memory, residentBytes(nodePID)), max(idle.descriptors, openDescriptors(nodePID)))
        }
        var saveToEvent: [Double] = []
        var commitToEvent: [Double] = []
        let warmup = 20
        for index in 0..<(warmup + saves) {
            let name = "push-\(index)"
            let sent = ContinuousClock.now
            let response = try await post(url("public/records/modify", user: "bob"), """
                {"operations": [{"operationType": "create", "record": {"recordName": "\(name)", "recordType": "Restaurant",
                  "fields": {"name": {"value": "Push \(index)"}, "type": {"value": "Cafe"}}}}]}
                """)
            guard let created = response["records"]?.arrayValue?.first?["created"]?["timestamp"]?.int64Value else {
                fatalError("save failed: \(response)")
            }
            var last: (at: ContinuousClock.Instant, wall: Date)?
            for reader in streams.indices {
                guard let event = await streams[reader].next() else { fatalError("an event stream ended") }
                guard event.name == name else { fatalError("expected \(name), got \(event.name)") }
                if last == nil || event.at > last!.at { last = (event.at, event.wall) }
            }
            if index < warmup { continue }
            saveToEvent.append(milliseconds(last!.at - sent))
            commitToEvent.append(last!.wall.timeIntervalSince1970 * 1000 - Double(created))
        }
        print("push: \(saves) saves, SSE over loopback, \(subscribers) subscriber(s), figures to the last one; "
              + (inProcess ? "node and clients in one process" : "the node in process \(nodePID), the clients in this one"))
        report("save → event", saveToEvent)
        report("commit → event", commitToEvent)
        let count = Double(subscribers)
        print(String(format: "  idle streams, the node%@: %.1f KB of resident memory and %.2f descriptors per stream (%d MB, %d descriptors before; %d MB, %d with all open)",
                     (inProcess ? " and its clients" : "") as NSString,
                     Double(idle.memory - before.memory) / 1024 / count, Double(idle.descriptors - before.descriptors) / count,
                     before.memory / 1_048_576, before.descriptors, idle.memory / 1_048_576, idle.descriptors))
        node?.terminate()
        node?.waitUntilExit()
        exit(0)
    }

    /// Starts this binary as `push-node` over `dataDirectory` and waits (60 s at most) for its URL.
    static func startNode(dataDirectory: URL) async throws -> (Process, String) {
        let urlFile = dataDirectory.appendingPathComponent("node-url")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = ["push-node", dataDirectory.path, urlFile.path]
        try process.run()
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, process.isRunning {
            if let url = try? String(contentsOf: urlFile, encoding: .utf8), url.hasSuffix("\n") {
                return (process, url.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            try await Task.sleep(for: .milliseconds(20))  // poll interval while the node starts
        }
        process.terminate()
        fatalError("the node did not start within 60 s")
    }

    /// `localcloud-bench push-node DIR URLFILE`: the bench server alone, its URL written to URLFILE;
    /// it ends with its parent (the benchmark), so a benchmark that dies leaves no node behind.
    static func runNode(_ arguments: [String]) async throws {
        guard arguments.count == 2 else {
            print("usage: localcloud-bench push-node DATA-DIR URL-FILE")
            exit(2)
        }
        let directory = URL(fileURLWithPath: arguments[0])
        let urlFile = URL(fileURLWithPath: arguments[1])
        let parent = getppid()
        let server = Task {
            try await BenchmarkServer.run(dataDirectory: directory) { url in
                try? Data((url + "\n").utf8).write(to: urlFile, options: .atomic)
            }
        }
        // No signal reaches a child when its parent dies without cleaning up: look once a second.
        while getppid() == parent, !server.isCancelled {
            try await Task.sleep(for: .seconds(1))
        }
        exit(0)
    }

    /// Holds an SSE stream open: each event's record name and arrival, and one element once it is open.
    static func openStream(_ url: String, readers: inout [Task<Void, any Error>]) async throws
        -> (AsyncStream<(name: String, at: ContinuousClock.Instant, wall: Date)>, AsyncStream<Void>) {
        let (arrivals, arrived) = AsyncStream.makeStream(of: (name: String, at: ContinuousClock.Instant, wall: Date).self)
        let (opened, open) = AsyncStream.makeStream(of: Void.self)
        readers.append(Task {
            var request = HTTPClientRequest(url: url)
            request.headers.add(name: "Accept", value: "text/event-stream")
            let response = try await client.execute(request, timeout: .hours(1))
            var pending: [UInt8] = []
            for try await buffer in response.body {
                let now = ContinuousClock.now
                let wall = Date()
                pending.append(contentsOf: buffer.readableBytesView)
                while let end = eventEnd(pending) {
                    let block = String(decoding: pending[..<end], as: UTF8.self)
                    pending.removeFirst(end + 2)
                    if block.contains(": connected") { open.yield() }
                    for line in block.split(separator: "\n") where line.hasPrefix("data: ") {
                        let json = try JSONValue.parse(Array(line.dropFirst(6).utf8))
                        if let name = json["ck"]?["qry"]?["rid"]?.stringValue { arrived.yield((name, now, wall)) }
                    }
                }
            }
        })
        return (arrivals, opened)
    }

    /// VmRSS from /proc/PID/status, in bytes (0 where there is no /proc).
    static func residentBytes(_ pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }

    /// How many descriptors the process holds.
    static func openDescriptors(_ pid: pid_t) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }

    static func post(_ url: String, _ body: String) async throws -> JSONValue {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await client.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 16 * 1024 * 1024)
        return try JSONValue.parse(Array(bytes.readableBytesView))
    }

    static func eventEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        for index in 0..<(bytes.count - 1) where bytes[index] == 0x0A && bytes[index + 1] == 0x0A { return index }
        return nil
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    static func report(_ label: String, _ values: [Double]) {
        let sorted = values.sorted()
        func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)] }
        print(String(format: "  %@: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms", label as NSString,
                     percentile(0.5), percentile(0.9), percentile(0.99), sorted.last ?? 0))
    }
}
