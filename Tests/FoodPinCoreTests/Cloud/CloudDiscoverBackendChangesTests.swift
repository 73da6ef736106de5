import Foundation
import Synchronization
import Testing
@testable import FoodPinCore

/// Live changes and permissions, with the schema the seeder imports.
@Suite struct CloudDiscoverBackendChangesTests {
    @Test func otherUsersChangesArriveAndOwnSavesDoNot() async throws {
        let fixture = try CloudFixture()
        let alice = await fixture.backend(user: "alice")
        let bob = await fixture.backend(user: "bob")
        let received = Mutex<[RemoteChange]>([])
        let listening = Task {
            for await changes in alice.changes() { received.withLock { $0 += changes } }
        }
        defer { listening.cancel() }
        // The subscription is saved and the watcher started before anything below counts.
        var subscribed = false
        let clock = ContinuousClock()
        let subscribeDeadline = clock.now + .seconds(60)
        while !subscribed && clock.now < subscribeDeadline {
            subscribed = try await alice.database.allSubscriptions().contains { $0.subscriptionID == CloudDiscoverBackend.subscriptionID }
            if !subscribed { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(subscribed)
        // Keep saving as bob until one arrives: the watcher starts at the log's end after subscribing.
        var bobsIDs: [String] = []
        let deadline = clock.now + .seconds(60)
        while received.withLock({ $0.isEmpty }) && clock.now < deadline {
            bobsIDs.append(try await bob.save(RestaurantDraft(name: "Bob's \(bobsIDs.count)", type: "T", location: "L")).id)
            _ = await waitUntil(timeout: .seconds(2)) { !received.withLock { $0.isEmpty } }
        }
        let first = try #require(received.withLock { $0.first })
        #expect(bobsIDs.contains(first.recordID))
        #expect(first.kind == .created)

        let mine = try await alice.save(RestaurantDraft(name: "Alice's own", type: "T", location: "L"))
        let bobsLast = try await bob.save(RestaurantDraft(name: "Bob's last", type: "T", location: "L"))
        #expect(await waitUntil(timeout: .seconds(60)) { received.withLock { $0.contains { $0.recordID == bobsLast.id } } })
        #expect(!received.withLock { $0.contains { $0.recordID == mine.id } })
    }

    @Test func withoutAnAccountTheChangeStreamFinishes() async throws {
        let fixture = try CloudFixture()
        var count = 0
        for await _ in await fixture.backend(user: nil).changes() { count += 1 }
        #expect(count == 0)
    }

    @Test func seedingImportsTheSchemaSoOnlyTheCreatorMayDelete() async throws {
        let fixture = try CloudFixture()
        let fresh = await fixture.container(schema: false)
        #expect(try await fresh.schema().recordTypes["Restaurant"] == nil)
        #expect(try await fixture.seeder(fresh).seedIfNeeded() == .seeded(count: CloudFixture.sampleCount))
        #expect(try await fresh.schema().recordTypes["Restaurant"] != nil)
        let alice = await fixture.backend(user: "alice")
        let bob = await fixture.backend(user: "bob")
        let sample = try #require(try await alice.firstPage(limit: 1).restaurants.first)
        await #expect { try await bob.delete(id: sample.id) } throws: { error in
            let error = error as? DiscoverError
            return error?.code == .permissionDenied && error?.message.hasPrefix("Permission Failure") == true
        }
        #expect(try await alice.firstPage(limit: 1).restaurants.first?.id == sample.id)
        try await alice.delete(id: sample.id)
        #expect(try await alice.firstPage(limit: 1).restaurants.first?.id != sample.id)
    }
}

