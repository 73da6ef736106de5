import Foundation
import LocalCloud
import LocalCloudServerTesting
import Synchronization
import Testing

/// `reachabilityChanges()`: with a notification stream open and no request of the app's, a remote
/// container notices the server going away (the stream's loss, confirmed by a probe) and coming back.
@Suite("Remote reachability")
struct ReachabilityTests {
    /// Polls until `condition` holds; `false` after `timeout`.
    static func within(_ timeout: Duration, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func theServerGoingAwayAndComingBackIsSeenWithoutARequest() async throws {
        let server = try await RemoteTestServer.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lcr-reach-\(UUID().uuidString)", isDirectory: true)
        defer {
            server.removeData()
            try? FileManager.default.removeItem(at: directory)
        }
        let alice = Container(configuration: try await server.configuration(user: "alice", dataDirectory: directory))
        let listening = Task { for await _ in alice.notifications {} }
        let reports = Mutex<[Bool]>([])
        let watching = Task { for await reachable in alice.reachabilityChanges() { reports.withLock { $0.append(reachable) } } }
        defer {
            listening.cancel()
            watching.cancel()
        }
        #expect(await Self.within(.seconds(5)) { reports.withLock { $0 } == [true] }, "the current state first")

        await server.stop()
        // A mechanism, not a speed: the full suite on two cores queues every task, so the bound is
        // generous (how fast the change is seen is a benchmark's figure, not this test's).
        #expect(await Self.within(.seconds(60)) { reports.withLock { $0.last } == false }, "offline, with no request")
        #expect(alice.serverIsReachable == false)

        let restarted = try await RemoteTestServer.start(restarting: server)
        #expect(await Self.within(.seconds(60)) { reports.withLock { $0.last } == true }, "back, with no request")
        #expect(reports.withLock { $0 } == [true, false, true], "each change once")
        #expect(alice.serverIsReachable == true)
        await restarted.stop()
    }

    @Test func aLocalContainersStreamEndsAtOnce() async {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lcr-local-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let local = Container(configuration: .init(dataDirectory: directory, user: "alice"))
        var count = 0
        for await _ in local.reachabilityChanges() { count += 1 }
        #expect(count == 0)
    }
}
