import Foundation
import LocalCloud
import LocalCloudPostgres
import PostgresTestSupport
import Synchronization
import Testing

/// Two nodes (two pools, two stores, two LISTEN connections) on one database.
@Suite(.enabled(if: !PostgresCluster.isSkipped, "LOCALCLOUD_SKIP_POSTGRES=1"))
struct PostgresMultiNodeTests {
    @Test func aStaleSaveLosesWhicheverNodeItGoesThrough() async throws {
        let fixture = try await PostgresFixture()
        let node1 = fixture.container(user: "alice").publicCloudDatabase
        let node2 = fixture.container(user: "alice", node: 2).publicCloudDatabase
        let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "shared"))
        record["name"] = "v1"
        _ = try await node1.save(record)
        let first = try await node1.record(for: record.recordID)
        let second = try await node2.record(for: record.recordID)
        first["name"] = "from node 1"
        second["name"] = "from node 2"
        // Both copies carry the same tag; saved at once, exactly one may win.
        async let a = outcome { try await node1.save(first) }
        async let b = outcome { try await node2.save(second) }
        let results = await [a, b]
        let wins = results.filter { if case .success = $0 { true } else { false } }
        let conflicts = results.filter { if case .failure(let error as CloudError) = $0 { error.code == .serverRecordChanged } else { false } }
        #expect(wins.count == 1)
        #expect(conflicts.count == 1)
    }

    @Test func concurrentCreatesOfOneNameMakeOneRecord() async throws {
        let fixture = try await PostgresFixture()
        let nodes = [fixture.container(user: "alice").publicCloudDatabase, fixture.container(user: "alice", node: 2).publicCloudDatabase]
        let saved = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<8 {
                let node = nodes[i % 2]
                group.addTask {
                    let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "same"))
                    record["name"] = "writer \(i)"
                    return (try? await node.save(record)) != nil
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        let page = try await nodes[0].records(matching: Query(recordType: "Restaurant", predicate: Predicate(value: true)))
        #expect(page.matchResults.count == 1)
        #expect(saved >= 1)
    }

    @Test func aCommitOnOneNodeNotifiesASubscriberOnTheOther() async throws {
        let fixture = try await PostgresFixture()
        let alice = fixture.container(user: "alice", node: 1)
        let bob = fixture.container(user: "bob", node: 2)
        let subscription = QuerySubscription(recordType: "Restaurant", predicate: Predicate(format: "type == 'Cafe'"),
                                             subscriptionID: "cafes", options: [.firesOnRecordCreation])
        _ = try await alice.publicCloudDatabase.save(subscription)
        var notifications = alice.notifications(since: try await alice.currentChangeToken())
        // An hour-long poll interval: only LISTEN/NOTIFY can deliver within the waits below.
        notifications.pollInterval = .seconds(3600)
        let received = Mutex<[(LocalCloud.Notification, ContinuousClock.Instant)]>([])
        let listener = Task.detached {
            for await notification in notifications { received.withLock { $0.append((notification, .now)) } }
        }
        defer { listener.cancel() }
        // The reader is listening once a save on node 2 made after its first read reaches it: the
        // first café may come from the watcher's opening read (a loaded run opens it late), the
        // second only through NOTIFY.
        for warmups in 1...2 {
            let warmup = Record(recordType: "Restaurant")
            warmup["type"] = "Cafe"
            _ = try await bob.publicCloudDatabase.save(warmup)
            #expect(await poll(timeout: .seconds(60)) { received.withLock { $0.count } >= warmups })
        }
        let other = Record(recordType: "Restaurant")
        other["type"] = "Diner"
        _ = try await bob.publicCloudDatabase.save(other)
        let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "new-cafe"))
        record["type"] = "Cafe"
        _ = try await bob.publicCloudDatabase.save(record)
        #expect(await poll(timeout: .seconds(60)) { received.withLock { $0.count } >= 3 })
        let delivered = received.withLock { $0 }
        #expect(delivered.map(\.0.recordID?.recordName).last == "new-cafe")
        #expect(delivered.map(\.0.modifiedBy?.recordName).last == "_bob")
        // Only the cafés: the diner matched no subscription.
        #expect(delivered.count == 3)
        // Commit → notification latency across nodes is a benchmark figure (docs/PERFORMANCE.md,
        // scripts/bench/multinode.sh), not a bound here: a loaded full-suite run queues every task.
    }

    /// A node keeps the schema under a stamp only schema writes move: any node's schema import
    /// or development save that evolves the schema (a NOTIFY with an empty payload), not a record
    /// commit, so a save does not read the schema's row again after every other node's commit.
    @Test func aSchemaWriteOnOneNodeMovesTheOthersSchemaStampAndARecordCommitDoesNot() async throws {
        let fixture = try await PostgresFixture()
        let node1 = fixture.container(user: "alice").publicCloudDatabase
        let node2 = try await fixture.store(node: 2)
        node2.listener.start()
        defer { node2.listener.stop() }
        #expect(await poll(timeout: .seconds(60)) { node2.listener.isListening })

        // The first Restaurant evolves the development schema inside the save's own transaction.
        let start = node2.listener.schemaStamp()
        let first = Record(recordType: "Restaurant")
        first["name"] = "First"
        _ = try await node1.save(first)
        #expect(await poll(timeout: .seconds(60)) { node2.listener.schemaStamp() != start })

        // Same type, same fields: a record commit only. Node 2 hears it (its change stamp moves),
        // and its schema stamp stays.
        let known = node2.listener.schemaStamp()
        let commits = node2.listener.stamp()
        let second = Record(recordType: "Restaurant")
        second["name"] = "Second"
        _ = try await node1.save(second)
        #expect(await poll(timeout: .seconds(60)) { node2.listener.stamp() != commits })
        #expect(node2.listener.schemaStamp() == known)

        // A new field evolves it again.
        let third = Record(recordType: "Restaurant")
        third["type"] = "Cafe"
        _ = try await node1.save(third)
        #expect(await poll(timeout: .seconds(60)) { node2.listener.schemaStamp() != known })
    }

    @Test func aRestartFailsCallsWithTryAgainLaterThenThePoolReconnects() async throws {
        // Its own cluster: the restart must not disturb the tests running beside it.
        let cluster = try await PostgresCluster.startPrivate()
        // A defer cannot await; the cluster's watchdog also stops it if the process ends first.
        defer { Task { await cluster.stop() } }
        // connect_timeout=1: the 8 saves wait in turn (a database runs 4 operations at once), so
        // under a loaded full-suite run the default 3 s could add up past the bound below, which is
        // there to tell a deadline from the pool's own reconnection wait (60 s).
        let fixture = try await PostgresFixture(cluster: cluster, connectTimeout: .seconds(1))
        let db = fixture.container(user: "alice").publicCloudDatabase
        let before = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "before"))
        // Set-up, not the subject: on a loaded machine the fresh cluster's first connections can
        // take longer than connect_timeout, and a call that got no connection committed nothing.
        var saved = false
        for _ in 0..<20 where !saved {
            do {
                _ = try await db.save(before)
                saved = true
            } catch let error as CloudError where error.code == .serviceUnavailable {
                continue
            }
        }
        try #require(saved, "the first save reached the fresh cluster")
        let store = try await fixture.store()
        _ = try store.changeStamp()  // starts the LISTEN connection, as the server's first cached request does
        #expect(await poll(timeout: .seconds(20)) { store.listener.isListening })
        try await cluster.restart(stopOnly: true)
        // Calls fail within the URL's connect_timeout, not after the pool's reconnection backoff.
        let started = ContinuousClock.now
        let outcomes = await withTaskGroup(of: (Result<Record, any Error>, Duration).self) { group in
            for index in 0..<8 {
                group.addTask {
                    let start = ContinuousClock.now
                    let down = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "down-\(index)"))
                    return (await outcome { try await db.save(down) }, ContinuousClock.now - start)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        for (result, elapsed) in outcomes {
            switch result {
            case .success: Issue.record("A save succeeded with PostgreSQL stopped")
            case .failure(let error as CloudError):
                #expect(error.code == .serviceUnavailable)
                #expect(error.retryAfterSeconds != nil)
            case .failure(let error): Issue.record("Not a CloudError: \(error)")
            }
            // connect_timeout (1 s) against the pool's reconnection wait (60 s), with room for a
            // loaded full-suite run.
            #expect(elapsed < .seconds(30))
        }
        #expect(ContinuousClock.now - started < .seconds(45))
        // The change stamp is read from memory: it answers with the database down (a read of the
        // database would throw serviceUnavailable), and never repeats while LISTEN is down.
        #expect(await poll(timeout: .seconds(20)) { !store.listener.isListening })
        #expect(try store.changeStamp() != store.changeStamp())
        try await cluster.restart(startOnly: true)
        let after = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "after"))
        #expect(await poll(timeout: .seconds(30)) { (try? await db.save(after)) != nil })
        // What was acknowledged before the restart is there.
        #expect(try await db.record(for: before.recordID).recordID.recordName == "before")
        // The LISTEN connection is back too.
        #expect(await poll(timeout: .seconds(30)) { store.listener.isListening })
    }
}

/// The result of an async call, success or failure.
func outcome<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes.
func poll(timeout: Duration, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
}
