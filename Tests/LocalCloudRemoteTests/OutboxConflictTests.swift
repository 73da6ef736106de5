import Foundation
import LocalCloud
import LocalCloudServerTesting
import Testing

/// Offline changes that meet a conflict on upload, against a real server: alice's laptop changes
/// or deletes a record while away, and her desktop changes it on the server meanwhile. Each save
/// policy settles the conflict its way; nothing is dropped without a trace, and a change whose
/// earlier attempt landed (a crash after the server's commit) is not counted as a conflict.
@Suite("Remote outbox conflicts")
struct OutboxConflictTests {
    /// A server with `shared` (name "v1", type "Cafe") saved by alice's laptop, which read it back
    /// (so its cache knows the change tag), and the laptop's configuration; the server is stopped.
    struct Away {
        let server: RemoteTestServer
        let laptop: Container.Configuration
        let client: URL
        /// The laptop's copy, with the change tag it was read at.
        let seen: Record

        static func start() async throws -> Away {
            let server = try await RemoteTestServer.start()
            let client = OutboxTests.temporaryDirectory()
            let laptop = try await server.configuration(user: "alice", dataDirectory: client)
            let online = Container(configuration: laptop)
            let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "shared"))
            record["name"] = "v1"
            record["type"] = "Cafe"
            _ = try await online.publicCloudDatabase.save(record)
            let seen = try await online.publicCloudDatabase.record(for: record.recordID)
            await server.stop()
            return Away(server: server, laptop: laptop, client: client, seen: seen)
        }

        /// The laptop, offline, renames its copy to "Laptop's name" with `policy`; the change is queued.
        func laptopRenames(_ policy: ModifyRecordsOperation.RecordSavePolicy) async throws -> Container {
            let laptop = Container(configuration: laptop)
            seen["name"] = "Laptop's name"
            _ = try await laptop.publicCloudDatabase.modifyRecords(saving: [seen], deleting: [], savePolicy: policy)
            return laptop
        }

        /// Alice's desktop changes the record on the server while the laptop is away (written
        /// straight into the stopped server's store, as the desktop's upload would leave it).
        func desktopChanges(_ change: (Record) -> Void) async throws {
            let desktop = Container(configuration: .init(containerIdentifier: server.container, dataDirectory: server.dataDirectory, user: "alice"))
            let record = try await desktop.publicCloudDatabase.record(for: Record.ID(recordName: "shared"))
            change(record)
            _ = try await desktop.publicCloudDatabase.save(record)
        }

        /// The server comes back; the laptop (the container that queued) reaches it, and its outbox
        /// uploads. Returns once the outbox is empty or its first change was refused.
        func reconnect(_ container: Container) async throws -> RemoteTestServer {
            let restarted = try await RemoteTestServer.start(restarting: server)
            // Any answer after a network failure starts the upload at once.
            _ = try? await container.publicCloudDatabase.records(for: [Record.ID(recordName: "shared")])
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                let pending = container.pendingChanges()
                if pending.isEmpty || pending.first?.failure != nil { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            return restarted
        }

        func serverCopy(_ restarted: RemoteTestServer) async throws -> Record? {
            let directory = OutboxTests.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let bob = Container(configuration: try await restarted.configuration(user: "bob", dataDirectory: directory))
            switch try await bob.publicCloudDatabase.records(for: [Record.ID(recordName: "shared")])[Record.ID(recordName: "shared")] {
            case .success(let record)?: return record
            case .failure(let error as CloudError)? where error.code == .unknownItem: return nil
            case .failure(let error)?: throw error
            case nil: return nil
            }
        }

        func finish(_ restarted: RemoteTestServer) async {
            await restarted.stop()
            server.removeData()
            try? FileManager.default.removeItem(at: client)
        }
    }

    @Test func ifServerRecordUnchangedKeepsTheChangeMarkedWithTheServersVersion() async throws {
        let away = try await Away.start()
        let laptop = try await away.laptopRenames(.ifServerRecordUnchanged)
        #expect(laptop.pendingChanges().map(\.recordID.recordName) == ["shared"], "queued, with the tag it was read at")
        try await away.desktopChanges { $0["type"] = "Bar" }

        let restarted = try await away.reconnect(laptop)
        let kept = try #require(laptop.pendingChanges().first)
        #expect(kept.isConflict && kept.failure?.hasPrefix("Conflict: changed on the server by alice") == true, "\(kept.failure ?? "-")")
        #expect(kept.record?["name"] as? String == "Laptop's name", "the laptop's change is still there")
        #expect(kept.serverRecord?["type"] as? String == "Bar", "with the server's version to show")
        #expect(kept.policy == .ifServerRecordUnchanged)
        let server = try #require(try await away.serverCopy(restarted))
        #expect(server["name"] as? String == "v1" && server["type"] as? String == "Bar", "the desktop's change is not overwritten")
        // A relaunch still shows it: the conflict is kept in the outbox file.
        let relaunched = Container(configuration: away.laptop)
        #expect(relaunched.pendingChanges().first?.isConflict == true)
        await away.finish(restarted)
    }

    @Test func changedKeysWritesTheChangedKeysOntoTheServersVersion() async throws {
        let away = try await Away.start()
        let laptop = try await away.laptopRenames(.changedKeys)
        try await away.desktopChanges { $0["type"] = "Bar" }

        let restarted = try await away.reconnect(laptop)
        #expect(laptop.pendingChanges().isEmpty, "settled: \(laptop.pendingChanges().first?.failure ?? "-")")
        let server = try #require(try await away.serverCopy(restarted))
        #expect(server["name"] as? String == "Laptop's name", "the laptop's changed key")
        #expect(server["type"] as? String == "Bar", "on top of the desktop's change")
        await away.finish(restarted)
    }

    @Test func allKeysOverwritesTheServersVersion() async throws {
        let away = try await Away.start()
        let laptop = try await away.laptopRenames(.allKeys)
        try await away.desktopChanges { record in
            record["type"] = "Bar"
            record["location"] = "Desk"
        }

        let restarted = try await away.reconnect(laptop)
        #expect(laptop.pendingChanges().isEmpty, "settled: \(laptop.pendingChanges().first?.failure ?? "-")")
        let server = try #require(try await away.serverCopy(restarted))
        #expect(server["name"] as? String == "Laptop's name")
        #expect(server["type"] as? String == "Cafe", "the laptop's whole record replaced the desktop's")
        #expect(server["location"] == nil)
        await away.finish(restarted)
    }

    @Test func aClientNamedCreateThatMeetsOtherContentIsAConflictNotALanding() async throws {
        let away = try await Away.start()
        let laptop = Container(configuration: away.laptop)
        let mine = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "chosen-name"))
        mine["name"] = "The laptop's"
        _ = try await laptop.publicCloudDatabase.save(mine)
        let desktop = Container(configuration: .init(containerIdentifier: away.server.container, dataDirectory: away.server.dataDirectory, user: "alice"))
        let theirs = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "chosen-name"))
        theirs["name"] = "The desktop's"
        _ = try await desktop.publicCloudDatabase.save(theirs)

        let restarted = try await away.reconnect(laptop)
        let kept = try #require(laptop.pendingChanges().first)
        #expect(kept.isConflict, "EXISTS with other content is not an earlier attempt that landed")
        #expect(kept.failure?.hasPrefix("Conflict: the server has another record with this name") == true)
        #expect(kept.serverRecord?["name"] as? String == "The desktop's")
        await away.finish(restarted)
    }

    @Test func anUpdateWhoseEarlierAttemptLandedIsDoneNotAConflict() async throws {
        let away = try await Away.start()
        let laptop = try await away.laptopRenames(.ifServerRecordUnchanged)
        // As after a crash between the server's commit and the outbox's removal.
        try await away.desktopChanges { $0["name"] = "Laptop's name" }

        let restarted = try await away.reconnect(laptop)
        #expect(laptop.pendingChanges().isEmpty, "the server holds exactly this change, by alice: \(laptop.pendingChanges().first?.failure ?? "-")")
        await away.finish(restarted)
    }

    @Test func anOfflineDeleteOfARecordChangedMeanwhileIsKeptAsAConflict() async throws {
        let away = try await Away.start()
        let laptop = Container(configuration: away.laptop)
        _ = try await laptop.publicCloudDatabase.deleteRecord(withID: Record.ID(recordName: "shared"))
        #expect(laptop.pendingChanges().first?.isDelete == true)
        try await away.desktopChanges { $0["name"] = "Changed on the desktop" }

        let restarted = try await away.reconnect(laptop)
        let kept = try #require(laptop.pendingChanges().first)
        #expect(kept.isDelete && kept.isConflict, "the delete was made against the version the laptop saw")
        #expect(kept.failure?.contains("since it was deleted here; not deleted") == true, "\(kept.failure ?? "-")")
        #expect(kept.serverRecord?["name"] as? String == "Changed on the desktop")
        #expect(try await away.serverCopy(restarted)?["name"] as? String == "Changed on the desktop", "the desktop's change is not lost")
        await away.finish(restarted)
    }

    @Test func anOfflineDeleteUploadsOnceAndSurvivesARelaunchAndARepeat() async throws {
        let away = try await Away.start()
        do {
            // A process that deletes offline and exits.
            let laptop = Container(configuration: away.laptop)
            _ = try await laptop.publicCloudDatabase.deleteRecord(withID: Record.ID(recordName: "shared"))
        }
        let relaunched = Container(configuration: away.laptop)
        #expect(relaunched.pendingChanges().map(\.isDelete) == [true], "the queued delete is on disk")
        let restarted = try await away.reconnect(relaunched)
        #expect(relaunched.pendingChanges().isEmpty)
        #expect(try await away.serverCopy(restarted) == nil, "deleted")
        await away.finish(restarted)
    }

    @Test func aDeleteWhoseEarlierAttemptLandedIsDone() async throws {
        let away = try await Away.start()
        let laptop = Container(configuration: away.laptop)
        _ = try await laptop.publicCloudDatabase.deleteRecord(withID: Record.ID(recordName: "shared"))
        // As after a crash between the server's commit and the outbox's removal.
        let desktop = Container(configuration: .init(containerIdentifier: away.server.container, dataDirectory: away.server.dataDirectory, user: "alice"))
        _ = try await desktop.publicCloudDatabase.deleteRecord(withID: Record.ID(recordName: "shared"))

        let restarted = try await away.reconnect(laptop)
        #expect(laptop.pendingChanges().isEmpty, "NOT_FOUND: it landed")
        await away.finish(restarted)
    }
}
