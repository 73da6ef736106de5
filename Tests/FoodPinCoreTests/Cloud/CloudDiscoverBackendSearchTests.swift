import Foundation
import LocalCloud
import Testing
@testable import FoodPinCore

/// The search query on a real SQLite file seeded with the 24 samples: LocalCloud's FTS5
/// `self CONTAINS`, case-, accent- and CJK-aware, with hostile text kept as data.
@Suite struct CloudDiscoverBackendSearchTests {
    func names(_ backend: CloudDiscoverBackend, _ text: String) async throws -> [String] {
        try await backend.search(text, limit: 50).restaurants.map(\.name)
    }

    @Test func caseAccentsAndCJK() async throws {
        let fixture = try CloudFixture()
        let backend = await fixture.backend(seeded: true)
        #expect(try await names(backend, "cafe deja") == ["Café Déjà Vu"])
        #expect(try await names(backend, "CAFÉ DÉJÀ") == ["Café Déjà Vu"])
        #expect(try await names(backend, "拉麵") == ["拉麵 一番"])
        #expect(try await names(backend, "點心") == ["點心 Dim Sum Palace"])
        #expect(try await names(backend, "muller") == ["Bäckerei Müller"])
        // Every word must match, in any of name, type, location and description.
        #expect(try await names(backend, "ramen tokyo") == ["拉麵 一番"])
        #expect(try await names(backend, "ramen lyon").isEmpty)
        #expect(try await names(backend, "tonkotsu") == ["拉麵 一番"], "the description is searched")
        // The phone is not searchable.
        let phone = try #require(try await backend.firstPage(limit: 1).restaurants.first?.phone.filter(\.isNumber))
        #expect(try await names(backend, phone).isEmpty)
    }

    @Test func everyLetterNarrowsTheList() async throws {
        let fixture = try CloudFixture()
        let backend = await fixture.backend(seeded: true)
        var previous: Set<String>?
        for text in ["c", "ca", "caf", "cafe", "cafe d", "cafe de", "cafe deja", "cafe deja v"] {
            let found = Set(try await names(backend, text))
            #expect(found.contains("Café Déjà Vu"), "\(text)")
            if let previous { #expect(found.isSubset(of: previous), "\(text) narrows") }
            previous = found
        }
        #expect(try await names(backend, "cafe de") == ["Café Déjà Vu"])
        #expect(try await names(backend, "tok") == ["拉麵 一番"])
        #expect(try await names(backend, "ram") == ["拉麵 一番"])
        // A space finishes the word: "caf " is a whole word no restaurant has.
        #expect(try await names(backend, "caf ").isEmpty)
        // CJK by substring, alone and beside Latin words.
        #expect(try await names(backend, "麵") == ["拉麵 一番"])
        #expect(try await names(backend, "一") == ["拉麵 一番"])
        #expect(try await names(backend, "番 tok") == ["拉麵 一番"])
        #expect(try await names(backend, "點") == ["點心 Dim Sum Palace"])
        #expect(try await names(backend, "心 dim su") == ["點心 Dim Sum Palace"])
    }

    @Test func newestFirstAndPagedByCursor() async throws {
        let fixture = try CloudFixture()
        let backend = await fixture.backend(seeded: true)
        await backend.seedOnce()
        for index in 0..<5 {
            _ = try await backend.save(RestaurantDraft(name: "Noodle \(index)", type: "Ramen", location: "Osaka"))
        }
        let first = try await backend.search("noodle", limit: 3)
        #expect(first.restaurants.map(\.name) == ["Noodle 4", "Noodle 3", "Noodle 2"])
        let cursor = try #require(first.cursor)
        let second = try await backend.nextPage(after: cursor, limit: 3)
        #expect(second.restaurants.map(\.name) == ["Noodle 1", "Noodle 0"])
        #expect(second.cursor == nil)
        let listed = try await backend.restaurants(matching: "noodle osaka", limit: nil, includingImages: false)
        #expect(listed.map(\.name) == ["Noodle 4", "Noodle 3", "Noodle 2", "Noodle 1", "Noodle 0"])
    }

    @Test(arguments: ["\"", "%@", "OR", "NOT", "a OR b", "\\", "cafe\"); DROP TABLE records; --", "\u{1B}[2J",
                      "name == 'x'", "*", "NEAR(a b)", "^cafe", "cafe*", "''''"])
    func hostileTextIsSearchedForLiterally(text: String) async throws {
        let fixture = try CloudFixture()
        let backend = await fixture.backend(seeded: true)
        await backend.seedOnce()
        let saved = try await backend.save(RestaurantDraft(name: "Literal \(text) place", type: "Cafe", location: "Lyon"))
        let page = try await backend.search(text, limit: 50)
        if SearchRequest.hasWords(text) {
            // Its words match the record holding them (and no error is thrown).
            #expect(page.restaurants.contains { $0.id == saved.id })
        } else {
            #expect(page.restaurants.isEmpty)
        }
        // The store is intact.
        #expect(try await backend.restaurants(limit: nil, includingImages: false).count == CloudFixture.sampleCount + 1)
    }
}
