import Foundation
import LocalCloud
import LocalCloudServerTesting
import Testing
@testable import FoodPinCore

/// An edit made offline that the server refuses only at upload (the restaurant changed on another
/// machine meanwhile), against a real `localcloud serve`: the row shows it, and `e` on that row
/// opens the form with the server's version, resolved either way as a conflict met online is.
@Suite struct CloudDiscoverBackendRefusedEditTests {
    /// A real server, and alice's remote container (its data in `directory`) holding one restaurant of hers.
    static func aliceWithARestaurant() async throws -> (RemoteTestServer, URL, Container, Record) {
        let server = try await RemoteTestServer.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("foodpin-refused-\(UUID().uuidString)")
        let alice = Container(configuration: try await server.configuration(user: "alice", dataDirectory: directory))
        let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "alices"))
        record["name"] = "Alice's Cafe"
        record["type"] = "Cafe"
        record["location"] = "Lyon"
        _ = try await alice.publicCloudDatabase.save(record)
        return (server, directory, alice, record)
    }

    /// Her desktop renames it on the server (the server must be stopped: it writes its files directly).
    static func renameOnTheDesktop(_ record: Record, of server: RemoteTestServer, to name: String) async throws -> Container {
        let desktop = Container(configuration: .init(containerIdentifier: server.container, dataDirectory: server.dataDirectory, user: "alice"))
        let changed = try await desktop.publicCloudDatabase.record(for: record.recordID)
        changed["name"] = name
        _ = try await desktop.publicCloudDatabase.save(changed)
        return desktop
    }

    /// Alice's Discover screen, its first page loaded.
    static func screen(of backend: CloudDiscoverBackend) async throws -> AppState {
        var state = AppState(config: AppConfig(currentUser: "alice", formServices: .fake()), width: 120, height: 24, now: Date())
        send(&state, .pageLoaded(.first, .success(try await backend.firstPage(limit: 50))))
        return state
    }

    /// `e` on the selected row, a new name, Ctrl-S: saved through the backend as the app does.
    static func edit(_ state: inout AppState, name: String, backend: CloudDiscoverBackend) async throws {
        send(&state, .key(.character("e")))
        #expect(state.screen == .form)
        state.form?.setText(name, for: .name)
        guard case .saveEdit(let edit)? = send(&state, .key(.control("s"))).first else {
            throw CloudError(.internalError, "Ctrl-S did not save the edit")
        }
        send(&state, .editSucceeded(try await backend.update(edit)))
    }

    /// Offline, alice saves `name` from the form (it waits in the outbox) while her desktop renames
    /// the restaurant; the server back, her upload is refused as a conflict. Returns the restarted
    /// server and the desktop.
    static func editRefusedAtUpload(_ state: inout AppState, _ name: String, server: RemoteTestServer, alice: Container,
                                    record: Record, backend: CloudDiscoverBackend) async throws -> (RemoteTestServer, Container) {
        await server.stop()
        try await edit(&state, name: name, backend: backend)
        #expect(alice.pendingChanges().count == 1)
        let desktop = try await renameOnTheDesktop(record, of: server, to: "Alice's Bistro")
        let restarted = try await RemoteTestServer.start(restarting: server)
        // Any request that reaches the server starts the upload.
        _ = try? await alice.publicCloudDatabase.record(for: Record.ID(recordName: "no-such-restaurant"))
        let deadline = ContinuousClock.now + .seconds(30)
        while alice.pendingChanges().first?.isConflict != true && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(alice.pendingChanges().first?.isConflict == true)
        return (restarted, desktop)
    }

    @Test(arguments: ["keep theirs", "overwrite with mine"])
    func anEditRefusedAtUploadIsResolvedFromTheForm(_ choice: String) async throws {
        let (server, directory, alice, record) = try await Self.aliceWithARestaurant()
        defer { server.removeData() }
        defer { try? FileManager.default.removeItem(at: directory) }
        let backend = CloudDiscoverBackend(container: alice)
        var state = try await Self.screen(of: backend)

        // Offline, alice edits it on the screen while her desktop renames it on the server; back
        // online, the upload meets the conflict and is kept, refused.
        let (restarted, desktop) = try await Self.editRefusedAtUpload(&state, "Alice's Café, edited offline", server: server,
                                                                      alice: alice, record: record, backend: backend)
        send(&state, .pageLoaded(.refresh, .success(try await backend.refresh(limit: 50))))
        let row = try #require(state.list.restaurant(withID: "alices"))
        #expect(row.name == "Alice's Café, edited offline", "the row shows the edit…")
        #expect(row.uploadFailure?.hasPrefix("Conflict: changed on the server by alice") == true, "…marked refused")
        #expect(row.refusedEdit?.theirs.name == "Alice's Bistro")

        // `e` on that row: the form holds the edit and shows the server's version at once.
        state.list.select(id: "alices")
        send(&state, .key(.character("e")))
        #expect(state.screen == .form)
        let form = try #require(state.form)
        #expect(form.text(.name) == "Alice's Café, edited offline")
        #expect(form.conflict?.name == "Alice's Bistro")
        let screen = view(state, width: 120, height: 24).lines.joined(separator: "\n")
        #expect(screen.contains("k keeps theirs, o overwrites with mine"), "\(screen)")

        if choice == "keep theirs" {
            let effects = send(&state, .key(.character("k")))
            #expect(effects.contains(.discardRefusedEdit(id: "alices")), "keeping theirs drops the refused edit: \(effects)")
            #expect(state.screen == .list)
            #expect(state.list.restaurant(withID: "alices")?.name == "Alice's Bistro")
            #expect(state.list.restaurant(withID: "alices")?.uploadFailure == nil)
            try await backend.discardRefusedEdit(id: "alices")
            #expect(alice.pendingChanges().isEmpty, "the refused edit is dropped")
            #expect(try await desktop.publicCloudDatabase.record(for: record.recordID)["name"] as? String == "Alice's Bistro")
        } else {
            guard case .saveEdit(let overwrite)? = send(&state, .key(.character("o"))).first else {
                Issue.record("o did not save the edit")
                await restarted.stop()
                return
            }
            let saved = try await backend.update(overwrite)
            #expect(saved.name == "Alice's Café, edited offline")
            #expect(!saved.isWaiting, "online, it is saved at once")
            send(&state, .editSucceeded(saved))
            #expect(state.screen == .list)
            #expect(alice.pendingChanges().isEmpty, "the refused edit is replaced by the save over theirs")
            #expect(try await desktop.publicCloudDatabase.record(for: record.recordID)["name"] as? String == "Alice's Café, edited offline")
        }
        // A later refresh shows the server's record as resolved, with no refusal.
        send(&state, .pageLoaded(.refresh, .success(try await backend.refresh(limit: 50))))
        let resolved = try #require(state.list.restaurant(withID: "alices"))
        #expect(resolved.uploadFailure == nil && resolved.refusedEdit == nil && !resolved.isWaiting)
        #expect(resolved.name == (choice == "keep theirs" ? "Alice's Bistro" : "Alice's Café, edited offline"))
        await restarted.stop()
    }

    /// The first refresh after the refusal carries the desktop's rename twice: on the first page
    /// and in the catch-up's changes, applied after it. Both keep the edit and its refusal (the
    /// catch-up's bare server version once hid them until a second refresh).
    @Test func theCatchUpAfterARefusalKeepsTheRefusedEditOnItsRow() async throws {
        let (server, directory, alice, record) = try await Self.aliceWithARestaurant()
        defer { server.removeData() }
        defer { try? FileManager.default.removeItem(at: directory) }
        let backend = CloudDiscoverBackend(container: alice)
        var state = try await Self.screen(of: backend)

        // The upload is refused before the one refresh the screen gets.
        let (restarted, _) = try await Self.editRefusedAtUpload(&state, "Edited Offline", server: server,
                                                                alice: alice, record: record, backend: backend)
        let page = try await backend.refresh(limit: 50)
        #expect(page.updated.map(\.id) == ["alices"], "the desktop's rename is in the catch-up")
        send(&state, .pageLoaded(.refresh, .success(page)))
        let row = try #require(state.list.restaurant(withID: "alices"))
        #expect(row.name == "Edited Offline")
        #expect(row.uploadFailure?.hasPrefix("Conflict") == true)
        #expect(row.refusedEdit?.theirs.name == "Alice's Bistro")
        await restarted.stop()
    }
}
