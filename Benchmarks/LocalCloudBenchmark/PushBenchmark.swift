// `localcloud-bench push`: commit-to-delivery latency of the server's SSE push, over the network.
//
//   swift run -c release localcloud-bench push [--saves 500] [--schema Assets/FoodPin.ckdb]
//
// Starts the real server (LocalCloudServer, fixed bench credentials) on a free loopback port over a
// fresh data directory. Alice saves a query subscription on Restaurant and holds
// `GET /database/1/…/notifications` open (AsyncHTTPClient, streaming body; she never polls).
// Bob then saves --saves restaurants one at a time with `records/modify`, each after the previous
// one's event arrived. Two figures per save:
// - save → event: from sending bob's request to alice's event arriving (request, commit, match,
//   delivery: an upper bound on commit → event);
// - commit → event: from the record's `created.timestamp` (taken in the save's transaction, ms
//   resolution, same machine's wall clock) to the event arriving.
import AsyncHTTPClient
import Foundation
import LocalCloud
import LocalCloudServer
import NIOCore
import NIOHTTP1

enum PushBenchmark {
    static func run(_ arguments: [String]) async throws {
        var saves = 500
        var schemaPath = "Assets/FoodPin.ckdb"
        var iterator = arguments.makeIterator()
        while let flag = iterator.next() {
            let value = iterator.next() ?? ""
            switch flag {
            case "--saves": saves = Int(value) ?? saves
            case "--schema": schemaPath = value
            default:
                print("usage: localcloud-bench push [--saves N] [--schema FILE.ckdb]")
                exit(2)
            }
        }
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("localcloud-bench-push-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let containerID = "iCloud.Bench"
        if let schema = try? String(contentsOfFile: schemaPath, encoding: .utf8) {
            let seed = Container(configuration: .init(containerIdentifier: containerID, dataDirectory: directory, user: nil))
            _ = try seed.importSchema(LocalCloud.Schema(ckdb: schema))
        }

        let (urls, listening) = AsyncStream.makeStream(of: String.self)
        let server = Task { try await BenchmarkServer.run(dataDirectory: directory) { url in listening.yield(url) } }
        defer { server.cancel() }
        guard let base = await urls.first(where: { _ in true }) else { fatalError("the server did not start") }
        func url(_ endpoint: String, user: String) -> String {
            "\(base)/database/1/\(containerID)/development/\(endpoint)?ckAPIToken=\(BenchmarkServer.apiToken)&ckWebAuthToken=user-\(user)"
        }

        _ = try await post(url("public/subscriptions/modify", user: "alice"), """
            {"operations": [{"operationType": "create", "subscription": {"subscriptionID": "bench", "subscriptionType": "query",
              "query": {"recordType": "Restaurant"}, "firesOn": ["create"]}}]}
            """)

        // Alice's stream: each event's record name and arrival, in order.
        let (arrivals, arrived) = AsyncStream.makeStream(of: (name: String, at: ContinuousClock.Instant, wall: Date).self)
        let (opened, open) = AsyncStream.makeStream(of: Void.self)
        let reader = Task {
            var request = HTTPClientRequest(url: url("notifications", user: "alice"))
            request.headers.add(name: "Accept", value: "text/event-stream")
            let response = try await HTTPClient.shared.execute(request, timeout: .hours(1))
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
        }
        defer { reader.cancel() }
        for await _ in opened { break }

        var events = arrivals.makeAsyncIterator()
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
            guard let event = await events.next() else { fatalError("the event stream ended") }
            guard event.name == name else { fatalError("expected \(name), got \(event.name)") }
            if index < warmup { continue }
            saveToEvent.append(milliseconds(event.at - sent))
            commitToEvent.append(event.wall.timeIntervalSince1970 * 1000 - Double(created))
        }
        print("push: \(saves) saves, SSE over loopback, one subscriber")
        report("save → event", saveToEvent)
        report("commit → event", commitToEvent)
        exit(0)
    }

    static func post(_ url: String, _ body: String) async throws -> JSONValue {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
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
