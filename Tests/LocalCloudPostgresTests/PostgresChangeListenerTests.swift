import Foundation
import LocalCloud
import LocalCloudPostgres
import PostgresNIO
import PostgresTestSupport
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The store's one LISTEN connection: shared by every reader, reconnected after a drop with a
/// catch-up by sequence, and the source of the in-memory change stamp.
@Suite(.enabled(if: !PostgresCluster.isSkipped, "LOCALCLOUD_SKIP_POSTGRES=1"))
struct PostgresChangeListenerTests {
    @Test func manyReadersAndWatchersShareOneListenConnection() async throws {
        let fixture = try await PostgresFixture()
        let store = try await fixture.store()
        let readers = try (0..<25).map { _ in try store.openChangeReader() }
        defer { readers.forEach { $0.close() } }
        // Watchers, as the server's SSE streams hold them: all five share one reader (ChangeFanout).
        let alice = fixture.container(user: "alice")
        let watchers = (0..<5).map { _ in
            var notifications = alice.notifications
            notifications.pollInterval = .seconds(60)
            return Task.detached { for await _ in notifications {} }
        }
        defer { watchers.forEach { $0.cancel() } }
        #expect(await poll(timeout: .seconds(20)) { store.listener.readerCount >= 26 && store.listener.isListening })
        #expect(store.listener.readerCount == 26, "25 readers and the watchers' one")
        let listening = try await listenBackends(store)
        #expect(listening.count == 1)
        #expect(listening.first == store.listener.backendProcessID.map(Int.init))
        // Closing readers releases their registrations, not the shared connection.
        readers.forEach { $0.close() }
        #expect(store.listener.readerCount <= 1)
        await #expect(try listenBackends(store).count == 1)
    }

    @Test func aKilledListenConnectionReconnectsAndTheReaderCatchesUp() async throws {
        let cluster = try await PostgresCluster.shared()
        let fixture = try await PostgresFixture(cluster: cluster)
        let alice = fixture.container(user: "alice", node: 1)
        let bob = fixture.container(user: "bob", node: 2)
        let store = try await fixture.store(node: 1)
        let subscription = QuerySubscription(recordType: "Restaurant", predicate: Predicate(value: true),
                                             subscriptionID: "all", options: [.firesOnRecordCreation])
        _ = try await alice.publicCloudDatabase.save(subscription)
        var notifications = alice.notifications(since: try await alice.currentChangeToken())
        // Far longer than the test: only a wake-up can deliver in time.
        notifications.pollInterval = .seconds(300)
        let received = Mutex<[String]>([])
        let watcher = Task.detached {
            for await notification in notifications {
                received.withLock { $0.append(notification.recordID?.recordName ?? "") }
            }
        }
        defer { watcher.cancel() }
        _ = try await bob.publicCloudDatabase.save(Record(recordType: "Restaurant", recordID: Record.ID(recordName: "warmup")))
        #expect(await poll(timeout: .seconds(20)) { received.withLock { $0.contains("warmup") } })
        let backend = try #require(store.listener.backendProcessID)
        // The database takes no new connections, so the listener stays down while bob commits.
        // (Both pools keep the connections they have.)
        try await cluster.psql("ALTER DATABASE \(fixture.url.database) ALLOW_CONNECTIONS false")
        var allowed = false
        // A cleanup task: a defer cannot await (the database is this test's own, so nothing waits on it).
        defer { if !allowed { Task { try? await cluster.psql("ALTER DATABASE \(fixture.url.database) ALLOW_CONNECTIONS true") } } }
        try await cluster.psql("SELECT pg_terminate_backend(\(backend))")
        #expect(await poll(timeout: .seconds(20)) { !store.listener.isListening })
        // Not listening: the stamp cannot know of other nodes' commits, so it never repeats.
        #expect(try store.changeStamp() != store.changeStamp())
        // Its NOTIFY reaches no one on node 1.
        _ = try await bob.publicCloudDatabase.save(Record(recordType: "Restaurant", recordID: Record.ID(recordName: "while-down")))
        #expect(!received.withLock { $0.contains("while-down") })
        try await cluster.psql("ALTER DATABASE \(fixture.url.database) ALLOW_CONNECTIONS true")
        allowed = true
        // Reconnected: the reader is rung once and reads the log after the last sequence it saw.
        #expect(await poll(timeout: .seconds(20)) { received.withLock { $0.contains("while-down") } })
        #expect(store.listener.connectionCount >= 2)
        #expect(store.listener.isListening)
        // Node 1's LISTEN backend is a new one, and the only one: node 2 only wrote, so it listens to nothing.
        let reconnected = try #require(store.listener.backendProcessID)
        #expect(reconnected != backend)
        await #expect(try listenBackends(store) == [Int(reconnected)])
        // And the new connection hears the next commit.
        _ = try await bob.publicCloudDatabase.save(Record(recordType: "Restaurant", recordID: Record.ID(recordName: "after")))
        #expect(await poll(timeout: .seconds(20)) { received.withLock { $0.contains("after") } })
        #expect(received.withLock { $0 } == ["warmup", "while-down", "after"])
    }

    @Test func aCommitOnAnotherNodeMovesThisNodesStampFromMemory() async throws {
        let fixture = try await PostgresFixture()
        let node1 = fixture.container(user: "alice", node: 1).publicCloudDatabase
        let node2 = fixture.container(user: "bob", node: 2).publicCloudDatabase
        let store = try await fixture.store(node: 1)
        // Not listening before the first stamp is asked for: every read differs.
        #expect(!store.listener.isListening)
        #expect(try store.changeStamp() != store.changeStamp())
        #expect(await poll(timeout: .seconds(20)) { store.listener.isListening })
        // Still while nothing commits: a cache keyed by it keeps its entries.
        let quiet = try store.changeStamp()
        #expect(try store.changeStamp() == quiet)
        // A commit through this node moves it before the save returns.
        _ = try await node1.save(Record(recordType: "Restaurant"))
        let afterOwn = try store.changeStamp()
        #expect(afterOwn != quiet)
        // A record saved through node 2 moves it when the NOTIFY arrives.
        _ = try await node2.save(Record(recordType: "Restaurant"))
        #expect(await poll(timeout: .seconds(60)) { (try? store.changeStamp()) != afterOwn })
        // So does a write that leaves no change-log row: a subscription saved through node 2.
        let beforeSubscription = try store.changeStamp()
        _ = try await node2.save(QuerySubscription(recordType: "Restaurant", predicate: Predicate(value: true), subscriptionID: "s", options: [.firesOnRecordCreation]))
        #expect(await poll(timeout: .seconds(60)) { (try? store.changeStamp()) != beforeSubscription })
    }

    @Test func aListenConnectionThatStopsAnsweringIsReplaced() async throws {
        let fixture = try await PostgresFixture()
        let store = try await fixture.store()
        // A listener of its own, probing often; the store's own listens beside it.
        let listener = PostgresChangeListener(url: fixture.url, channel: store.channel, connectTimeout: .seconds(3),
                                              probeInterval: .milliseconds(300), probeTimeout: .seconds(1))
        listener.start()
        defer { listener.stop() }
        let (_, wakeup) = listener.register()
        #expect(await poll(timeout: .seconds(20)) { listener.isListening })
        let backend = try #require(listener.backendProcessID)
        // Its server process stops: the connection stays open and answers nothing, as when the
        // database's host is lost without closing it.
        #expect(kill(backend, SIGSTOP) == 0)
        defer { kill(backend, SIGCONT) }
        #expect(await poll(timeout: .seconds(20)) { listener.connectionCount >= 2 && listener.isListening })
        #expect(listener.backendProcessID != backend)
        // The new connection hears the next commit.
        await wakeup.wait(upTo: .milliseconds(1))  // the reconnection's ring
        _ = try await fixture.container().publicCloudDatabase.save(Record(recordType: "Restaurant"))
        let start = ContinuousClock.now
        await wakeup.wait(upTo: .seconds(20))
        #expect(ContinuousClock.now - start < .seconds(20))
    }

    /// The server processes of LISTEN connections on the fixture's database (their last statement
    /// is the LISTEN, or a liveness probe's `SELECT 1`).
    private func listenBackends(_ store: PostgresStore) async throws -> [Int] {
        try await store.pool.rows("""
            SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'localcloud listen'
            """).map { Int(try $0.decode(Int32.self)) }
    }
}
