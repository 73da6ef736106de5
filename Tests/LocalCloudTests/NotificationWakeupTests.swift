import Foundation
import GRDB
import Synchronization
import Testing
@testable import LocalCloud

/// The wake-up: a commit through this process's store reaches `container.notifications` at once,
/// and so does a commit by another connection (another process's, heard through the store
/// directory's inotify watch), without waiting for a poll.
@Suite struct NotificationWakeupTests {
    @Test func aCommitInThisProcessIsDeliveredWithoutWaitingForThePoll() async throws {
        let cloud = TestCloud()
        let alice = cloud.container(user: "alice")
        _ = try await alice.publicCloudDatabase.save(QuerySubscription(
            recordType: "Restaurant", predicate: Predicate(value: true), subscriptionID: "all",
            options: [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion]))
        // A poll so slow that only the wake-up can deliver within the deadline.
        var notifications = alice.notifications(since: try await alice.currentChangeToken())
        notifications.pollInterval = .seconds(3600)
        let inbox = NotificationInbox(notifications)
        let bob = cloud.container(user: "bob").publicCloudDatabase
        for round in 1...3 {
            let started = ContinuousClock.now
            _ = try await bob.save(restaurant("Diner \(round)"))
            // Any delivery well before the hour-long poll proves the wake-up; how fast it is, is
            // measured by `localcloud-bench push`, not here (a loaded 2-core run queues every task).
            #expect(await inbox.wait(for: round, timeout: .seconds(60)))
            #expect(ContinuousClock.now - started < .seconds(60))
        }
        #expect(inbox.notifications.map(\.queryNotificationReason) == [.recordCreated, .recordCreated, .recordCreated])
    }

    @Test func aRingBeforeTheWaitIsNotLost() async {
        let wakeup = Wakeup()
        wakeup.fire()
        wakeup.fire()
        let started = ContinuousClock.now
        #expect(await wakeup.wait(upTo: .seconds(3600)))
        #expect(ContinuousClock.now - started < .seconds(60))
        // The two rings collapsed into one: the next wait runs to its timeout.
        let second = ContinuousClock.now
        await wakeup.wait(upTo: .milliseconds(50))
        #expect(ContinuousClock.now - second >= .milliseconds(50))
    }

    @Test func aRingWakesAWaiterAndCancellationEndsTheWait() async {
        let wakeup = Wakeup()
        let waiter = Task { await wakeup.wait(upTo: .seconds(3600)) }
        try? await Task.sleep(for: .milliseconds(20))
        wakeup.fire()
        #expect(await waiter.value, "a ring ended the wait")
        let cancelled = Task { await wakeup.wait(upTo: .seconds(3600)) }
        cancelled.cancel()
        #expect(await cancelled.value == false, "cancellation is no ring")
        #expect(await wakeup.wait(upTo: .milliseconds(10)) == false, "a timeout is no ring")
    }

    @Test func aCommitByAnotherConnectionRingsTheReaderWithoutAPoll() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lc-wake-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cloud.sqlite")
        let store = try SQLiteStore.open(fileURL: file, assetsDirectory: directory.appendingPathComponent("assets"))
        let reader = try store.openChangeReader()
        defer { reader.close() }
        #expect(reader.hearsEveryCommit)
        _ = try await reader.lastSequence()
        // Let any ring from opening the store go by: a wait that runs to its timeout has none pending.
        while true {
            let started = ContinuousClock.now
            await reader.waitForCommit(upTo: .milliseconds(300))
            if ContinuousClock.now - started >= .milliseconds(300) { break }
        }
        // Another connection, not the store's pool, as another process would write: no transaction observer sees it.
        let other = try DatabaseQueue(path: file.path)
        try await other.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS probe(a); INSERT INTO probe VALUES (1)")
        }
        let started = ContinuousClock.now
        await reader.waitForCommit(upTo: .seconds(3600))
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    @Test func theDirectoryWatcherHearsOnlyTheStoreFileAndStops() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lc-wake-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let rings = Mutex(0)
        let watcher = try #require(FileChangeWatcher(directory: directory.path, namePrefix: "cloud.sqlite") { rings.withLock { $0 += 1 } })
        #expect(watcher.isRunning)
        // The store file's `-wal` rings (another file's write beside it is filtered out by name).
        try Data("x".utf8).write(to: directory.appendingPathComponent("identity.sqlite-wal"))
        try Data("x".utf8).write(to: directory.appendingPathComponent("cloud.sqlite-wal"))
        let deadline = ContinuousClock.now + .seconds(60)
        while rings.withLock({ $0 }) == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(rings.withLock { $0 } >= 1)
        watcher.stop()
        while watcher.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!watcher.isRunning)
    }
}
