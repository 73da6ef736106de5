import Foundation
import LocalCloud
import Testing
@testable import FoodPinCore

/// Lists on a real SQLite file shared by three users, as on one machine: save, share, accept,
/// read-only refusals, removal.
@Suite struct CloudListsBackendTests {
    func lists(_ fixture: CloudFixture, user: String) async -> CloudListsBackend {
        let discover = await fixture.backend(user: user, seeded: true)
        return CloudListsBackend(container: discover.container, discover: discover, temporaryDirectory: fixture.uploads)
    }

    @Test func saveMakesAListWithEntriesThatKeepWhatTheRowShows() async throws {
        let fixture = try CloudFixture()
        let alice = await lists(fixture, user: "alice")
        _ = try await alice.discover.firstPage(limit: 1)   // seeds the samples
        let first = try await alice.save(restaurantNamed: "Café Déjà Vu", toList: "Friday")
        #expect(first.list.name == "Friday" && first.list.count == 1 && !first.alreadyThere)
        #expect(try await alice.save(restaurantNamed: "sample-cafe-deja-vu", toList: "friday").alreadyThere)
        _ = try await alice.save(restaurantNamed: "Sushi Kaze", toList: "Friday")
        let overview = try await alice.overview()
        #expect(overview.mine.map(\.name) == ["Friday"] && overview.mine.first?.count == 2 && overview.sharedWithMe.isEmpty)
        let ref = try #require(overview.mine.first?.ref)
        let entries = try await alice.entries(of: ref)
        #expect(entries.map(\.name) == ["Café Déjà Vu", "Sushi Kaze"])
        #expect(entries.first?.location == "Montréal, Canada" && entries.first?.createdBy == "alice")
        // The thumbnail is the entry's own small JPEG.
        let entryID = try #require(entries.first?.id)
        let thumbnail = try await alice.thumbnailFile(forEntry: entryID, in: ref)
        let file = try #require(thumbnail)
        let info = try ImageInfo.probe(file)
        #expect(info.width <= RestaurantListRecord.thumbnailWidth)
        // The list still shows after the restaurant leaves Discover.
        try await alice.discover.delete(id: "sample-cafe-deja-vu")
        #expect(try await alice.entries(of: ref).map(\.name) == ["Café Déjà Vu", "Sushi Kaze"])
        #expect(fixture.leftoverUploads.isEmpty, "the thumbnails' temporary JPEGs are removed")
        await #expect(throws: DiscoverError.self) { try await alice.save(restaurantNamed: "No Such Place", toList: "Friday") }
        await #expect(throws: DiscoverError.self) { try await alice.save(restaurantNamed: "Sushi Kaze", toList: "  ") }
    }

    @Test func sharingAcceptingReadOnlyAndRemoval() async throws {
        let fixture = try CloudFixture()
        let alice = await lists(fixture, user: "alice")
        let bob = await lists(fixture, user: "bob")
        let carol = await lists(fixture, user: "carol")
        _ = try await alice.discover.firstPage(limit: 1)
        for name in ["Café Déjà Vu", "Sushi Kaze", "Green Bowl"] { _ = try await alice.save(restaurantNamed: name, toList: "Friday") }

        let url = try await alice.share(listNamed: "Friday", with: ["bob"], readOnly: false)
        #expect(try await bob.overview().sharedWithMe.isEmpty, "nothing shows before accepting")
        #expect(try await bob.accept(url) == "Friday")
        let shared = try #require(try await bob.overview().sharedWithMe.first)
        #expect(shared.name == "Friday" && shared.owner == "alice" && shared.count == 3 && shared.permission == "read-write")
        #expect(try await alice.overview().mine.first?.sharedWith == ["bob"])

        // bob writes to alice's list, by name.
        #expect(try await bob.save(restaurantNamed: "Pizzeria Napoli", toList: "Friday").list.ref == shared.ref)
        #expect(try await alice.overview().mine.first?.count == 4)
        #expect(try await bob.overview().mine.isEmpty)

        // carol, read-only: reads, cannot write or remove.
        _ = try await carol.accept(try await alice.share(listNamed: "Friday", with: ["carol"], readOnly: true))
        let carols = try #require(try await carol.overview().sharedWithMe.first)
        #expect(carols.permission == "read-only" && carols.count == 4)
        await #expect(throws: DiscoverError.self) { try await carol.save(restaurantNamed: "Addis Injera", toList: "Friday") }
        let entry = try #require(try await carol.entries(of: carols.ref).first)
        await #expect { try await carol.removeEntry(entry.id, from: carols.ref) } throws: { error in
            (error as? DiscoverError)?.code == .permissionDenied
        }
        #expect(try await alice.overview().mine.first?.sharedWith == ["bob", "carol (read-only)"])

        // A link and chosen people do not mix.
        await #expect(throws: DiscoverError.self) { try await alice.shareLink(listNamed: "Friday", readOnly: true) }

        // bob is removed: the list is gone for him at once, and his write to it is refused.
        try await alice.unshare(listNamed: "Friday", user: "bob")
        #expect(try await bob.overview().sharedWithMe.isEmpty)
        await #expect(throws: DiscoverError.self) { try await bob.entries(of: shared.ref) }
        await #expect(throws: DiscoverError.self) { try await bob.removeEntry(entry.id, from: shared.ref) }
        #expect(try await alice.overview().mine.first?.count == 4)

        // Everyone: carol loses it too.
        try await alice.unshare(listNamed: "Friday", user: nil)
        #expect(try await carol.overview().sharedWithMe.isEmpty)
        await #expect(throws: DiscoverError.self) { try await alice.unshare(listNamed: "Nope", user: nil) }
    }
}
