import Foundation
import LocalCloud
import LocalCloudServerTesting
import Testing
@testable import FoodPinCore

/// The Discover list after a reconnect, against a real `localcloud serve`: a refresh drops
/// restaurants deleted while the client was away and updates changed ones on every loaded page,
/// not only the first, and the reader stays where they were.
@Suite struct CloudDiscoverBackendCatchUpTests {
    @Test func aRefreshAfterReconnectingAppliesDeletionsAndChangesOnEveryLoadedPage() async throws {
        let server = try await RemoteTestServer.start()
        defer { server.removeData() }
        let bobDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("foodpin-catchup-\(UUID().uuidString)")
        let aliceDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("foodpin-catchup-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: bobDirectory)
            try? FileManager.default.removeItem(at: aliceDirectory)
        }
        // 300 restaurants: r-299 is the newest, the first row.
        let bob = Container(configuration: try await server.configuration(user: "bob", dataDirectory: bobDirectory))
        for start in stride(from: 0, to: 300, by: 100) {
            _ = try await bob.publicCloudDatabase.modifyRecords(saving: (start..<start + 100).map { index in
                let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: String(format: "r-%03d", index)))
                record["name"] = "Restaurant \(index)"
                record["type"] = "Cafe"
                return record
            }, deleting: [])
        }

        let alice = Container(configuration: try await server.configuration(user: "alice", dataDirectory: aliceDirectory))
        let backend = CloudDiscoverBackend(container: alice)
        var state = AppState(config: AppConfig(currentUser: "alice", formServices: .fake()), width: 60, height: 20, now: Date())
        send(&state, .pageLoaded(.first, .success(try await backend.firstPage(limit: 50))))
        while let cursor = state.list.cursor {
            send(&state, .pageLoaded(.next, .success(try await backend.nextPage(after: cursor, limit: 50))))
        }
        #expect(state.list.count == 300, "six pages loaded")
        // The reader is on page 4.
        state.list.select(id: "r-100")
        send(&state, .tick)
        let rowOnScreen = try #require(state.list.selectedIndex) - state.scrollOffset

        // Alice goes away; meanwhile bob's machine deletes a row of page 2 (above the reader) and
        // one of page 6 (below), and renames one of page 3.
        await server.stop()
        let direct = Container(configuration: .init(containerIdentifier: server.container, dataDirectory: server.dataDirectory, user: "bob"))
        let renamed = try await direct.publicCloudDatabase.record(for: Record.ID(recordName: "r-150"))
        renamed["name"] = "Renamed while away"
        _ = try await direct.publicCloudDatabase.modifyRecords(
            saving: [renamed], deleting: [Record.ID(recordName: "r-200"), Record.ID(recordName: "r-005")])
        let restarted = try await RemoteTestServer.start(restarting: server)

        #expect(send(&state, .key(.character("r"))) == [.refresh(limit: 50)])
        let refreshed = try await backend.refresh(limit: 50)
        #expect(refreshed.deletedIDs == ["r-200", "r-005"])
        #expect(refreshed.updated.map { $0.name } == ["Renamed while away"])
        send(&state, .pageLoaded(.refresh, .success(refreshed)))

        let ids = state.list.items.map(\.id)
        #expect(state.list.count == 298)
        #expect(!ids.contains("r-200") && !ids.contains("r-005"), "rows deleted while away are gone from pages 2 and 6")
        #expect(state.list.restaurant(withID: "r-150")?.name == "Renamed while away", "the renamed row on page 3 is updated in place")
        #expect(ids.firstIndex(of: "r-150") == ids.firstIndex(of: "r-151").map { $0 + 1 }, "…where it was")
        #expect(state.list.selected?.id == "r-100", "the selection stays on the same restaurant")
        #expect(try #require(state.list.selectedIndex) - state.scrollOffset == rowOnScreen, "on the same screen row")

        // Nothing changed since: the next refresh has nothing to apply.
        let again = try await backend.refresh(limit: 50)
        #expect(again.deletedIDs.isEmpty && again.updated.isEmpty)
        await restarted.stop()
    }

    @Test func aDeleteMadeOfflineThatMeetsAChangeShowsTheRowAgainMarked() async throws {
        let server = try await RemoteTestServer.start()
        defer { server.removeData() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("foodpin-catchup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try await server.configuration(user: "alice", dataDirectory: directory)
        let alice = Container(configuration: configuration)
        let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "alices"))
        record["name"] = "Alice's Cafe"
        _ = try await alice.publicCloudDatabase.save(record)
        let backend = CloudDiscoverBackend(container: alice)
        var state = AppState(config: AppConfig(currentUser: "alice", formServices: .fake()), width: 60, height: 20, now: Date())
        send(&state, .pageLoaded(.first, .success(try await backend.firstPage(limit: 50))))
        #expect(state.list.items.map(\.id) == ["alices"])

        // Offline, alice deletes it from the screen (the store queues it with the version she saw)…
        await server.stop()
        send(&state, .key(.character("d")), .key(.character("y")))
        try await backend.delete(id: "alices")
        send(&state, .deleteSucceeded(id: "alices"))
        #expect(state.list.items.isEmpty)
        // …while her other machine renames it on the server.
        let desktop = Container(configuration: .init(containerIdentifier: server.container, dataDirectory: server.dataDirectory, user: "alice"))
        let changed = try await desktop.publicCloudDatabase.record(for: record.recordID)
        changed["name"] = "Alice's Bistro"
        _ = try await desktop.publicCloudDatabase.save(changed)

        let restarted = try await RemoteTestServer.start(restarting: server)
        // The first answer after the failure starts the upload, which meets the conflict.
        _ = try await backend.refresh(limit: 50)
        let deadline = ContinuousClock.now + .seconds(30)
        while alice.pendingChanges().first?.isConflict != true && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(alice.pendingChanges().first?.isConflict == true)
        send(&state, .pageLoaded(.refresh, .success(try await backend.refresh(limit: 50))))
        let row = try #require(state.list.restaurant(withID: "alices"), "the delete was not done: the row is back")
        #expect(row.name == "Alice's Bistro", "as the server has it")
        #expect(row.uploadFailure?.hasPrefix("Conflict: changed on the server by alice since it was deleted here") == true)
        let line = view(state, width: 60, height: 20).lines.first { $0.contains("not uploaded") }
        #expect(line?.contains("Conflict") == true, "shown on the row: \(line ?? "-")")
        await restarted.stop()
    }

    @Test func offlineWithNothingCachedTheAddsMadeOfflineStillShow() async throws {
        let server = try await RemoteTestServer.start()
        defer { server.removeData() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("foodpin-catchup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try await server.configuration(user: "alice", dataDirectory: directory)
        await server.stop()
        // A first launch with the server away: nothing cached, one add queued.
        let alice = Container(configuration: configuration)
        let backend = CloudDiscoverBackend(container: alice)
        let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "queued-first"))
        record["name"] = "Queued on a first launch"
        _ = try await alice.publicCloudDatabase.save(record)
        let page = try await backend.firstPage(limit: 50)
        #expect(page.isFromCache)
        #expect(page.restaurants.map(\.name) == ["Queued on a first launch"])
        #expect(page.restaurants.first?.isWaiting == true)
        // Without anything queued, the failure is the screen's to show.
        let empty = CloudDiscoverBackend(container: Container(configuration: try await server.configuration(
            user: "bob", dataDirectory: directory.appendingPathComponent("bob"))))
        await #expect(throws: DiscoverError.self) { _ = try await empty.firstPage(limit: 50) }
    }
}

