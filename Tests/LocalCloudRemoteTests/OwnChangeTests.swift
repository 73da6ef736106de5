import Foundation
import LocalCloud
import LocalCloudServerTesting
import Synchronization
import Testing

/// Which pushed changes are the signed-in user's own, exactly: the changes this client sent (by
/// any process on its cache), not "anything it touched lately". A push payload does not say who
/// made a change, so a time window would also swallow another user's change to a record alice
/// just saved, and her own upload of an add queued by another process would count as someone else's.
@Suite("Remote own changes")
struct OwnChangeTests {
    /// FoodPin's schema with Restaurant writable by every signed-in user, so bob can change alice's record.
    static func sharedSchema() throws -> String {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Assets/FoodPin.ckdb").standardized
        return try String(contentsOf: path, encoding: .utf8).replacingOccurrences(of: "GRANT WRITE TO \"_creator\"", with: "GRANT WRITE TO \"_icloud\"")
    }

    /// Waits (with a deadline) for the notification of `recordName`'s change with `reason`.
    static func arrival(_ received: borrowing Mutex<[LocalCloud.Notification]>, _ recordName: String,
                        _ reason: CloudNotification.Reason) async throws -> LocalCloud.Notification {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if let found = received.withLock({ $0.first { $0.recordID?.recordName == recordName && $0.queryNotificationReason == reason } }) {
                return found
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw CloudError(.internalError, "no \(reason) notification for \(recordName) within 20 s")
    }

    @Test func onlyTheChangesThisClientSentAreOwnWhateverTheTiming() async throws {
        let server = try await RemoteTestServer.start(schema: try Self.sharedSchema())
        defer { server.removeData() }
        let client = OutboxTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: client) }
        let configuration = try await server.configuration(user: "alice", dataDirectory: client)
        let alice = Container(configuration: configuration)
        // Bob on the same machine and data directory: one cache file, counts kept per user.
        let bob = Container(configuration: try await server.configuration(user: "bob", dataDirectory: client))
        _ = try await alice.publicCloudDatabase.save(QuerySubscription(
            recordType: "Restaurant", predicate: Predicate(value: true), subscriptionID: "all",
            options: [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion]))
        let received = Mutex<[LocalCloud.Notification]>([])
        let listener = Task {
            for await notification in alice.notifications { received.withLock { $0.append(notification) } }
        }
        defer { listener.cancel() }
        // Saves until the stream is open (the first notification arrives); these are alice's own.
        var warmUp = 0
        let deadline = ContinuousClock.now + .seconds(20)
        while received.withLock({ $0.isEmpty }) && ContinuousClock.now < deadline {
            _ = try await alice.publicCloudDatabase.save(Record(recordType: "Restaurant", recordID: Record.ID(recordName: "warm-\(warmUp)")))
            warmUp += 1
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(received.withLock { $0.first?.modifiedBy?.recordName } == "_alice")

        // Alice saves; a moment later bob changes the same record.
        let shared = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "shared"))
        shared["name"] = "Alice's"
        _ = try await alice.publicCloudDatabase.save(shared)
        #expect(try await Self.arrival(received, "shared", .recordCreated).modifiedBy?.recordName == "_alice")
        let bobs = try await bob.publicCloudDatabase.record(for: shared.recordID)
        bobs["name"] = "Bob's now"
        _ = try await bob.publicCloudDatabase.save(bobs)
        #expect(try await Self.arrival(received, "shared", .recordUpdated).modifiedBy == nil,
                "bob's change seconds after alice's save is not hers")

        // Another process on alice's cache (a `foodpin add` next to the open screen) saves: still hers.
        let otherProcess = Container(configuration: configuration)
        _ = try await otherProcess.publicCloudDatabase.save(Record(recordType: "Restaurant", recordID: Record.ID(recordName: "from-add")))
        #expect(try await Self.arrival(received, "from-add", .recordCreated).modifiedBy?.recordName == "_alice")

        // A refused save counts for nothing: bob's next change is still bob's.
        let stale = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "shared"))
        await #expect(throws: CloudError.self) { try await alice.publicCloudDatabase.save(stale) }
        let again = try await bob.publicCloudDatabase.record(for: shared.recordID)
        again["name"] = "Bob's again"
        _ = try await bob.publicCloudDatabase.save(again)
        let deadlineAgain = ContinuousClock.now + .seconds(20)
        while received.withLock({ $0.filter { $0.recordID?.recordName == "shared" }.count < 3 }) && ContinuousClock.now < deadlineAgain {
            try await Task.sleep(for: .milliseconds(10))
        }
        let sharedNotes = received.withLock { $0.filter { $0.recordID?.recordName == "shared" } }
        #expect(sharedNotes.map { $0.modifiedBy?.recordName } == ["_alice", nil, nil])
        await server.stop()
    }
}
