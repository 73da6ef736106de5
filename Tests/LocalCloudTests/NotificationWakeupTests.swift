import Foundation
import Testing
@testable import LocalCloud

/// The in-process wake-up: a commit through this process's store reaches `container.notifications`
/// at once, without waiting for the poll (which stays the path for other processes' commits).
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
        await wakeup.wait(upTo: .seconds(3600))
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
        await waiter.value
        let cancelled = Task { await wakeup.wait(upTo: .seconds(3600)) }
        cancelled.cancel()
        await cancelled.value
    }
}
