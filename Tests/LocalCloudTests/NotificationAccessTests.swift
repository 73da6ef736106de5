import Foundation
import Testing
@testable import LocalCloud

/// A notification is delivered only while its user may read the record: roles changed after the
/// subscription (or after the stream opened) count from the next change on.
@Suite struct NotificationAccessTests {
    static let everything: QuerySubscription.Options = [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion]

    func memo(_ name: String) -> Record {
        let record = Record(recordType: "Memo", recordID: Record.ID(recordName: name))
        record["text"] = name
        return record
    }

    @Test func losingTheRoleThatGrantsReadStopsNotificationsAtOnce() async throws {
        let cloud = TestCloud()
        let alice = cloud.container(user: "alice")
        let bob = cloud.container(user: "bob").publicCloudDatabase
        _ = try await bob.save(memo("first"))
        // Memos: only Staff reads; alice is Staff for now.
        _ = try await alice.updateSchema { schema in
            try schema.createRole("Staff")
            try schema.revoke(.read, from: SecurityRole.world, on: "Memo")
            try schema.grant(.read, to: "Staff", on: "Memo")
            try schema.assign(role: "Staff", to: "alice")
        }
        for (id, type) in [("memos", "Memo"), ("restaurants", "Restaurant")] {
            _ = try await alice.publicCloudDatabase.save(QuerySubscription(recordType: type, predicate: Predicate(value: true),
                                                                            subscriptionID: id, options: Self.everything))
        }
        let inbox = NotificationInbox(alice.notifications(since: try await alice.currentChangeToken()))
        _ = try await bob.save(memo("while-staff"))
        #expect(await inbox.wait(for: 1))

        _ = try await alice.updateSchema { try $0.unassign(role: "Staff", from: "alice") }
        _ = try await bob.save(memo("after-losing-staff"))
        try await bob.deleteRecord(withID: Record.ID(recordName: "first"))
        // A readable change after them: once it arrives, the memos' turn has passed.
        let restaurant = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "marker"))
        restaurant["name"] = "Marker"
        _ = try await bob.save(restaurant)
        #expect(await inbox.wait(for: 2))
        let names = inbox.notifications.compactMap { $0.recordID?.recordName }
        #expect(names == ["while-staff", "marker"], "nothing about memos she can no longer read: \(names)")

        // Given back, the role counts again.
        _ = try await alice.updateSchema { try $0.assign(role: "Staff", to: "alice") }
        _ = try await bob.save(memo("staff-again"))
        #expect(await inbox.wait(for: 3))
        #expect(inbox.notifications.last?.recordID?.recordName == "staff-again")
    }

    @Test func aTypeOnlyItsCreatorReadsNotifiesTheCreatorAlone() async throws {
        let cloud = TestCloud()
        let alice = cloud.container(user: "alice")
        let bob = cloud.container(user: "bob").publicCloudDatabase
        _ = try await bob.save(memo("seed"))
        _ = try await alice.updateSchema { schema in
            try schema.revoke(.read, from: SecurityRole.world, on: "Memo")
            try schema.grant(.read, to: SecurityRole.creator, on: "Memo")
        }
        _ = try await alice.publicCloudDatabase.save(QuerySubscription(recordType: "Memo", predicate: Predicate(value: true),
                                                                        subscriptionID: "memos", options: Self.everything))
        let inbox = NotificationInbox(alice.notifications(since: try await alice.currentChangeToken()))
        _ = try await bob.save(memo("bobs"))
        _ = try await alice.publicCloudDatabase.save(memo("alices"))
        #expect(await inbox.wait(for: 1))
        let bobsRecord = try await bob.record(for: Record.ID(recordName: "bobs"))
        bobsRecord["text"] = "edited"
        _ = try await bob.save(bobsRecord)
        let mine = try await alice.publicCloudDatabase.record(for: Record.ID(recordName: "alices"))
        mine["text"] = "edited"
        _ = try await alice.publicCloudDatabase.save(mine)
        #expect(await inbox.wait(for: 2))
        #expect(inbox.notifications.compactMap { $0.recordID?.recordName } == ["alices", "alices"])
    }
}
