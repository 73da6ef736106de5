import Foundation
import Testing
@testable import LocalCloud

/// One change-log reader per store: every watcher of it (any user, any start position) is served by
/// one ``ChangeFanout``, which goes away with its last watcher.
@Suite struct ChangeFanoutTests {
    static let everything: QuerySubscription.Options = [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion]

    /// Polls `condition` until it holds or `timeout` passes.
    func eventually(timeout: Duration = .seconds(60), _ condition: () throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))  // poll interval
        }
        return try condition()
    }

    @Test func watchersOfEveryUserShareOneReaderThatEndsWithTheLast() async throws {
        let cloud = TestCloud()
        let base = cloud.container(user: nil)
        let alice = base.acting(as: "alice")
        let bob = base.acting(as: "bob")
        for user in [alice, bob] {
            _ = try await user.publicCloudDatabase.save(QuerySubscription(recordType: "Restaurant", predicate: Predicate(value: true),
                                                                           subscriptionID: "all", options: Self.everything))
        }
        // Only Thai places, for bob: a predicate tested in SQL against the changed row.
        _ = try await bob.publicCloudDatabase.save(QuerySubscription(recordType: "Restaurant",
                                                                      predicate: Predicate(format: "type == %@", "Thai"),
                                                                      subscriptionID: "thai", options: Self.everything))
        let store = try await base.core.store()
        let start = try await alice.currentChangeToken()
        var inboxes: [NotificationInbox]? = [
            NotificationInbox(alice.notifications(since: start)),
            NotificationInbox(alice.notifications(since: start)),
            NotificationInbox(bob.notifications(since: start)),
        ]
        #expect(await eventually { ChangeFanout.existing(for: store)?.listenerCount == 3 }, "three watchers, one fanout")

        _ = try await base.acting(as: "carol").publicCloudDatabase.save(restaurant("Lotus", type: "Thai"))
        _ = try await base.acting(as: "carol").publicCloudDatabase.save(restaurant("Diner", type: "Cafe"))
        var late: NotificationInbox?
        do {
            let all = try #require(inboxes)
            #expect(await all[0].wait(for: 2))
            #expect(await all[1].wait(for: 2))
            #expect(await all[2].wait(for: 3))
            #expect(all[0].notifications.compactMap { $0.recordID?.recordName }.count == 2)
            let bobs = all[2].notifications.map(\.subscriptionID)
            #expect(bobs.sorted() == ["all", "all", "thai"], "the Thai subscription fired for Lotus only: \(bobs)")

            // A watcher that resumes from the start joins the same fanout and gets both changes; the
            // others get nothing twice.
            late = NotificationInbox(alice.notifications(since: start))
            #expect(await late?.wait(for: 2) == true)
            #expect(ChangeFanout.existing(for: store)?.listenerCount == 4)
            #expect(all[0].notifications.count == 2)
        }
        inboxes = nil
        late = nil
        #expect(await eventually { ChangeFanout.existing(for: store) == nil }, "the fanout closes with its last watcher")
    }
}
