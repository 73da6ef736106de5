import Foundation
import LocalCloud
import Testing
@testable import FoodPinCore

/// ``CloudDiscoverBackend/update(_:)`` on a real SQLite container: in place, against the version
/// shown, the photo replaced or removed.
@Suite struct CloudDiscoverBackendEditTests {
    static var photo: String { CloudFixture.assets.appendingPathComponent("Restaurants/addis-injera.jpg").path }

    @Test func anEditKeepsTheRecordNameAndCreationDateAndReplacesThePhoto() async throws {
        let fixture = try CloudFixture()
        let backend = await fixture.backend()
        let added = try await backend.save(RestaurantDraft(name: "Cafe Tpyo", type: "Cafe", location: "Lyon", imagePath: Self.photo))
        let oldImage = try #require(try await backend.imageFile(forRecordName: added.id))
        let shown = try #require(try await backend.firstPage(limit: 5).restaurants.first)
        #expect(shown.changeTag != nil && shown.systemFields != nil, "the list keeps the version it shows")

        var draft = RestaurantDraft(name: "Cafe Typo", type: "Cafe", location: "Lyon", phone: "04 78",
                                    imagePath: CloudFixture.assets.appendingPathComponent("Restaurants").path + "/"
                                        + (try #require(try FileManager.default.contentsOfDirectory(atPath: CloudFixture.assets
                                            .appendingPathComponent("Restaurants").path).filter { $0.hasSuffix(".jpg") && !$0.hasPrefix("addis") }.first)))
        let saved = try await backend.update(RestaurantEdit(original: shown, draft: draft))
        #expect(saved.id == added.id)
        #expect(saved.createdAt == added.createdAt)
        #expect(saved.createdBy == "alice")
        #expect(saved.changeTag != shown.changeTag)
        let page = try await backend.firstPage(limit: 5)
        #expect(page.restaurants.map(\.name) == ["Cafe Typo"], "in place: one restaurant, renamed")
        #expect(page.restaurants.first?.phone == "04 78")
        let newImage = try #require(try await backend.imageFile(forRecordName: added.id))
        #expect(newImage != oldImage)
        #expect(fixture.leftoverUploads.isEmpty, "the scaled upload is removed")
        let report = try await backend.container.collectGarbage(gracePeriod: .zero)
        #expect(report.removedAssets == 1, "the replaced photo's asset is garbage")
        #expect(!FileManager.default.fileExists(atPath: oldImage.path))
        #expect(FileManager.default.fileExists(atPath: newImage.path))

        draft.imagePath = nil
        draft.removesImage = true
        let current = try #require(try await backend.firstPage(limit: 5).restaurants.first)
        _ = try await backend.update(RestaurantEdit(original: current, draft: draft))
        #expect(try await backend.imageFile(forRecordName: added.id) == nil, "--no-image removes it")
    }

    @Test func anEditAgainstAnOlderVersionConflictsWithTheServersVersion() async throws {
        let fixture = try CloudFixture()
        let backend = await fixture.backend()
        _ = try await backend.save(RestaurantDraft(name: "Cafe", type: "Cafe", location: "Lyon"))
        let shown = try #require(try await backend.firstPage(limit: 5).restaurants.first)
        // Another machine (a second container on the same store) edits it meanwhile.
        let laptop = await CloudDiscoverBackend(container: fixture.container(), temporaryDirectory: fixture.uploads)
        _ = try await laptop.update(RestaurantEdit(original: shown, draft: RestaurantDraft(name: "From The Laptop", type: "Cafe", location: "Lyon")))

        let mine = RestaurantEdit(original: shown, draft: RestaurantDraft(name: "From The Screen", type: "Cafe", location: "Lyon"))
        do {
            _ = try await backend.update(mine)
            Issue.record("an edit against an older version was saved")
        } catch let error as DiscoverError {
            #expect(error.code == .conflict)
            #expect(error.message == "Changed by alice on another machine")
            #expect(error.serverVersion?.name == "From The Laptop")
            let theirs = try #require(error.serverVersion)
            let saved = try await backend.update(mine.overwriting(theirs))
            #expect(saved.name == "From The Screen", "overwriting saves mine against their version")
        }
        #expect(try await backend.firstPage(limit: 5).restaurants.map(\.name) == ["From The Screen"])
    }

    @Test func onlyTheCreatorMayEdit() async throws {
        let fixture = try CloudFixture()
        let alice = await fixture.backend()
        _ = try await alice.save(RestaurantDraft(name: "Alice's", type: "Cafe", location: "Lyon"))
        let bob = await fixture.backend(user: "bob")
        let shown = try #require(try await bob.firstPage(limit: 5).restaurants.first)
        await #expect(throws: DiscoverError.self) {
            _ = try await bob.update(RestaurantEdit(original: shown, draft: RestaurantDraft(name: "Bob's", type: "Cafe", location: "Lyon")))
        }
        #expect(try await alice.firstPage(limit: 5).restaurants.map(\.name) == ["Alice's"])
    }

    @Test func theCommandLineFindsARestaurantByRecordNameOrName() async throws {
        let fixture = try CloudFixture()
        let backend = await fixture.backend()
        let first = try await backend.save(RestaurantDraft(name: "Café Déjà Vu", type: "Cafe", location: "Paris"))
        _ = try await backend.save(RestaurantDraft(name: "Twice", type: "Cafe", location: "Paris"))
        _ = try await backend.save(RestaurantDraft(name: "Twice", type: "Bar", location: "Lyon"))
        #expect(try await backend.restaurant(namedOrRecord: first.id).name == "Café Déjà Vu")
        #expect(try await backend.restaurant(namedOrRecord: "Café Déjà Vu").id == first.id)
        #expect(try await backend.restaurant(namedOrRecord: "cafe deja vu").id == first.id, "case and accents ignored")
        do {
            _ = try await backend.restaurant(namedOrRecord: "Twice")
            Issue.record("an ambiguous name was accepted")
        } catch let error as DiscoverError {
            #expect(error.field == .name)
            #expect(error.message.hasPrefix("2 restaurants are named “Twice”: give one's record name"))
        }
        await #expect(throws: DiscoverError.self) { _ = try await backend.restaurant(namedOrRecord: "Nowhere") }
    }
}
