// `localcloud-bench notifications`: how fast a commit in another process reaches this one, and
// what an idle subscription costs.
//
//   swift run -c release localcloud-bench notifications [--saves 200] [--idle-seconds 60] [--poll-ms 100]
//
// A child `localcloud-stress` (built next to this binary) saves --saves restaurants as bob;
// this process, as alice with a query subscription, reads `container.notifications`. Latency is
// the time from the change's timestamp (taken inside the child's transaction, just before its
// commit) to the notification arriving here. Then nothing writes for --idle-seconds, and the
// process's CPU time over that window, scaled to a minute, is the idle cost.
import Foundation
import LocalCloud
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

enum NotificationBenchmark {
    static func run(_ arguments: [String]) async throws {
        var saves = 200
        var idleSeconds = 60.0
        var pollMilliseconds = 100
        var iterator = arguments.makeIterator()
        while let flag = iterator.next() {
            let value = iterator.next() ?? ""
            switch flag {
            case "--saves": saves = Int(value) ?? saves
            case "--idle-seconds": idleSeconds = Double(value) ?? idleSeconds
            case "--poll-ms": pollMilliseconds = Int(value) ?? pollMilliseconds
            default:
                print("usage: localcloud-bench notifications [--saves N] [--idle-seconds S] [--poll-ms MS]")
                exit(2)
            }
        }
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("localcloud-bench-notify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let container = Container(configuration: .init(containerIdentifier: "iCloud.Bench", dataDirectory: directory, user: "alice"))
        _ = try await container.publicCloudDatabase.save(QuerySubscription(
            recordType: "Restaurant", predicate: Predicate(value: true), subscriptionID: "bench",
            options: [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion]))

        let latencies = Mutex<[Double]>([])
        var notifications = container.notifications(since: try await container.currentChangeToken())
        notifications.pollInterval = .milliseconds(pollMilliseconds)
        let listener = Task.detached {
            for await notification in notifications where notification.modifiedBy?.recordName == "_bob" {
                let latency = Date().timeIntervalSince(notification.changeDate)
                latencies.withLock { $0.append(latency) }
            }
        }

        let stress = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("localcloud-stress")
        let child = Process()
        child.executableURL = stress
        child.arguments = ["--data-dir", directory.path, "--container", "iCloud.Bench", "--user", "bob", "--prefix", "bob", "--count", "\(saves)"]
        child.standardOutput = FileHandle.nullDevice
        let started = ContinuousClock.now
        try child.run()
        child.waitUntilExit()
        let writeTime = ContinuousClock.now - started
        let deadline = ContinuousClock.now + .seconds(10)
        while latencies.withLock({ $0.count }) < saves && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let sorted = latencies.withLock { $0 }.sorted()
        func percentile(_ p: Double) -> Double {
            sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)] * 1000
        }
        print("notifications (poll every \(pollMilliseconds) ms): \(sorted.count)/\(saves) delivered; child wrote them in \(writeTime)")
        print(String(format: "  commit -> notification latency: p50 %.1f ms, p99 %.1f ms, max %.1f ms", percentile(0.5), percentile(0.99), percentile(1.0)))

        // Idle: the watcher keeps polling data_version; nothing commits.
        let before = cpuSeconds()
        let idleStart = ContinuousClock.now
        try await Task.sleep(for: .seconds(idleSeconds))
        let idleWall = ContinuousClock.now - idleStart
        let used = cpuSeconds() - before
        let wall = Double(idleWall.components.seconds) + Double(idleWall.components.attoseconds) / 1e18
        print(String(format: "  idle subscription: %.1f ms CPU over %.0f s = %.1f ms CPU per minute (%.3f%% of one core)",
                     used * 1000, wall, used * 1000 * 60 / wall, used / wall * 100))
        listener.cancel()
        exit(sorted.count == saves ? 0 : 1)
    }

    /// User plus system CPU time of this process.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}
