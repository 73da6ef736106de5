import Foundation
import LocalCloud
import LocalCloudServerTesting
import Synchronization
import Testing

/// Offline creates and deletes: queued with their assets, uploaded in order when the server
/// answers, each exactly once, refusals kept with their reason.
@Suite("Remote outbox")
struct OutboxTests {
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("lcr-outbox-\(UUID().uuidString)", isDirectory: true)
    }

    /// Polls (with a deadline) until the container has nothing waiting.
    static func drained(_ container: Container, timeout: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if container.pendingChanges().isEmpty { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return container.pendingChanges().isEmpty
    }

    @Test func anAddWithAPhotoMadeOfflineUploadsOnceWhenTheServerIsBack() async throws {
        let server = try await RemoteTestServer.start()
        defer { server.removeData() }
        let client = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: client) }
        let configuration = try await server.configuration(user: "alice", dataDirectory: client)
        await server.stop()

        let photo = client.appendingPathComponent("photo.bin")
        try FileManager.default.createDirectory(at: client, withIntermediateDirectories: true)
        let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: photo)
        let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "offline-add"))
        record["name"] = "Made offline"
        record["image"] = Asset(fileURL: photo)
        do {
            // A process that saves and exits: the outbox outlives it.
            let alice = Container(configuration: configuration)
            let saved = try await alice.publicCloudDatabase.save(record)
            #expect(saved["name"] as? String == "Made offline")
            #expect(alice.pendingChanges().map(\.recordID.recordName) == ["offline-add"])
        }
        try FileManager.default.removeItem(at: photo)

        let restarted = try await RemoteTestServer.start(restarting: server)
        let alice = Container(configuration: configuration)   // a new process: the outbox is on disk
        #expect(await Self.drained(alice), "the queued add uploads once the server answers")
        let bob = Container(configuration: try await restarted.configuration(user: "bob", dataDirectory: Self.temporaryDirectory()))
        let found = try await bob.publicCloudDatabase.records(matching: Query(recordType: "Restaurant", predicate: Predicate(value: true)))
        let records = try found.matchResults.map { try $0.1.get() }
        #expect(records.map(\.recordID.recordName) == ["offline-add"], "saved exactly once")
        let asset = try #require(records.first?["image"] as? Asset)
        let file = try #require(asset.fileURL)
        #expect(try Data(contentsOf: file) == bytes, "the photo, byte for byte")
        await restarted.stop()
    }

    @Test func anUploadTheServerAlreadyHasIsDoneNotDoubled() async throws {
        let server = try await RemoteTestServer.start()
        defer { server.removeData() }
        let client = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: client) }
        let configuration = try await server.configuration(user: "alice", dataDirectory: client)
        let online = Container(configuration: configuration)
        let landed = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "landed"))
        landed["name"] = "Landed before the crash"
        _ = try await online.publicCloudDatabase.save(landed)

        // As after a crash between the server's commit and the outbox's removal: queue it again.
        await server.stop()
        let offline = Container(configuration: configuration)
        let again = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "landed"))
        again["name"] = "Landed before the crash"
        _ = try await offline.publicCloudDatabase.save(again)
        #expect(offline.pendingChanges().count == 1)
        let restarted = try await RemoteTestServer.start(restarting: server)
        #expect(await Self.drained(offline), "EXISTS on a create means an earlier attempt landed")
        let found = try await offline.publicCloudDatabase.records(matching: Query(recordType: "Restaurant", predicate: Predicate(value: true)))
        #expect(found.matchResults.count == 1)
        await restarted.stop()
    }

    @Test func aRefusedChangeStaysWithItsReason() async throws {
        let server = try await RemoteTestServer.start()
        defer { server.removeData() }
        let bob = Container(configuration: try await server.configuration(user: "bob", dataDirectory: Self.temporaryDirectory()))
        _ = try await bob.publicCloudDatabase.save(Record(recordType: "Restaurant", recordID: Record.ID(recordName: "bobs")))
        let client = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: client) }
        let configuration = try await server.configuration(user: "alice", dataDirectory: client)
        await server.stop()
        let alice = Container(configuration: configuration)
        _ = try await alice.publicCloudDatabase.deleteRecord(withID: Record.ID(recordName: "bobs"))
        let restarted = try await RemoteTestServer.start(restarting: server)
        let deadline = ContinuousClock.now + .seconds(30)
        while alice.pendingChanges().first?.failure == nil && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let refused = try #require(alice.pendingChanges().first)
        #expect(refused.recordID.recordName == "bobs" && refused.isDelete)
        #expect(refused.failure?.isEmpty == false, "alice may not delete bob's restaurant: kept, with the reason")
        await restarted.stop()
    }

    @Test func usersSharingADataDirectoryEachUploadTheirOwnChanges() async throws {
        let server = try await RemoteTestServer.start()
        defer { server.removeData() }
        let client = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: client) }
        let aliceConfiguration = try await server.configuration(user: "alice", dataDirectory: client)
        let bobConfiguration = try await server.configuration(user: "bob", dataDirectory: client)
        await server.stop()
        _ = try await Container(configuration: aliceConfiguration).publicCloudDatabase.save(
            Record(recordType: "Restaurant", recordID: Record.ID(recordName: "alices")))
        _ = try await Container(configuration: bobConfiguration).publicCloudDatabase.save(
            Record(recordType: "Restaurant", recordID: Record.ID(recordName: "bobs")))

        let alice = Container(configuration: aliceConfiguration)
        let bob = Container(configuration: bobConfiguration)
        #expect(alice.pendingChanges().map(\.recordID.recordName) == ["alices"], "one outbox file, each user's own changes")
        #expect(bob.pendingChanges().map(\.recordID.recordName) == ["bobs"])
        let restarted = try await RemoteTestServer.start(restarting: server)
        #expect(await Self.drained(alice))
        #expect(await Self.drained(bob))
        let found = try await bob.publicCloudDatabase.records(for: [Record.ID(recordName: "alices"), Record.ID(recordName: "bobs")])
        #expect(try found[Record.ID(recordName: "alices")]?.get().creatorUserRecordID?.recordName == "_alice")
        #expect(try found[Record.ID(recordName: "bobs")]?.get().creatorUserRecordID?.recordName == "_bob", "sent with bob's credentials")
        await restarted.stop()
    }

    @Test func withoutQueueingAnOfflineSaveFails() async throws {
        let server = try await RemoteTestServer.start()
        defer { server.removeData() }
        let client = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: client) }
        var configuration = try await server.configuration(user: "alice", dataDirectory: client)
        configuration.queuesWhenOffline = false
        await server.stop()
        let alice = Container(configuration: configuration)
        do {
            _ = try await alice.publicCloudDatabase.save(Record(recordType: "Restaurant"))
            Issue.record("an offline save without queueing succeeded")
        } catch let error as CloudError {
            // Unavailable when the port is closed; a parallel test's server may take the freed port
            // meanwhile, and a connection to a server that is not this one's fails as a network failure.
            #expect(error.code == .networkUnavailable || error.code == .networkFailure, "\(error)")
        }
        #expect(alice.pendingChanges().isEmpty)
    }
}
