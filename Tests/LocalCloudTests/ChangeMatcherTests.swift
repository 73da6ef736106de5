import Foundation
@testable import LocalCloud
import Testing

/// The change-matching loop both SQL stores' change readers share (``ChangeMatcher``).
struct ChangeMatcherTests {
    private func change(_ seq: Int64, kind: String = "created") -> LoggedChange {
        LoggedChange(seq: seq, scope: .public, owner: "", zone: "_defaultZone", recordName: "r\(seq)", recordType: "Restaurant",
                     kind: kind, modifiedBy: "_bob", at: Double(seq))
    }

    private func watched(_ subscription: Subscription) throws -> WatchedSubscription {
        try #require(WatchedSubscription(row: SubscriptionRow(subscription)))
    }

    @Test func eachListenerGetsItsRowsAndEachDatabaseQuestionIsAskedOnce() throws {
        let ramen = try watched(QuerySubscription(
            recordType: "Restaurant", predicate: Predicate(format: "type == %@", "Ramen"), subscriptionID: "ramen",
            options: [.firesOnRecordCreation, .firesOnce]))
        let everything = try watched(DatabaseSubscription(subscriptionID: "all"))
        let early = ChangeListenerPosition(id: 1, user: "alice", containerIdentifier: "iCloud.T", after: 0)
        let late = ChangeListenerPosition(id: 2, user: "alice", containerIdentifier: "iCloud.T", after: 2)
        let nobody = ChangeListenerPosition(id: 3, user: "carol", containerIdentifier: "iCloud.T", after: 1)
        let matcher = ChangeMatcher(changes: [change(1), change(2), change(3)], listeners: [early, late, nobody],
                                    subscriptions: ["alice": [ramen, everything]], shares: [])

        // The predicate is the only question: one per changed row, however many streams ask.
        let questions = matcher.questions()
        #expect(questions.map(\.change.seq) == [1, 2, 3])
        #expect(questions.allSatisfy { $0.testsPredicate && $0.grant == nil })

        var asked: [Int64] = []
        let batches = matcher.batches { question in
            asked.append(question.change.seq)
            return question.change.seq >= 2   // rows 2 and 3 are ramen places
        }
        #expect(asked == [1, 2, 3], "each question once, though both of alice's streams see row 3")

        let first = try #require(batches[1])
        #expect(first.through == 3)
        #expect(first.notifications.map(\.subscriptionID) == ["all", "ramen", "all", "all"], "firesOnce: ramen fires at row 2 only")
        #expect(first.spentSubscriptions.map(\.subscriptionID) == ["ramen"])

        let second = try #require(batches[2])
        #expect(second.notifications.map(\.subscriptionID) == ["ramen", "all"], "only rows after its own position")
        #expect(second.spentSubscriptions.map(\.subscriptionID) == ["ramen"])

        let third = try #require(batches[3])
        #expect(third.through == 3 && third.notifications.isEmpty, "a user with no subscriptions still moves on")
        #expect(ChangeMatcher.needsSchema(batches))
    }

    @Test func nothingNewKeepsEveryListenerWhereItIs() {
        let listeners = [ChangeListenerPosition(id: 1, user: "a", containerIdentifier: "c", after: 4),
                         ChangeListenerPosition(id: 2, user: "b", containerIdentifier: "c", after: 9)]
        let batches = ChangeMatcher.nothingNew(for: listeners)
        #expect(batches[1]?.through == 4 && batches[2]?.through == 9)
        #expect(!ChangeMatcher.needsSchema(batches))
    }
}
