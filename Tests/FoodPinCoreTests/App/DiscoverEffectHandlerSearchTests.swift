import Foundation
import Synchronization
import Testing
@testable import FoodPinCore

/// A backend whose search answers slowly for some texts, to race searches.
final class SlowSearchBackend: DiscoverBackend {
    let rows: [Restaurant]
    let searched = Mutex<[String]>([])
    let delays: [String: Duration]

    init(_ rows: [Restaurant], delays: [String: Duration] = [:]) {
        self.rows = rows
        self.delays = delays
    }

    func firstPage(limit: Int) async throws -> DiscoverPage { DiscoverPage(restaurants: Array(rows.prefix(limit)), cursor: nil) }
    func nextPage(after cursor: PageCursor, limit: Int) async throws -> DiscoverPage { DiscoverPage(restaurants: [], cursor: nil) }
    func save(_ draft: RestaurantDraft) async throws -> Restaurant { throw DiscoverError(.saveFailed, "read-only") }
    func delete(id: String) async throws {}
    func changes() -> AsyncStream<[RemoteChange]> { AsyncStream { _ in } }

    func search(_ text: String, limit: Int) async throws -> DiscoverPage {
        searched.withLock { $0.append(text) }
        if let delay = delays[text] { try? await Task.sleep(for: delay) }
        let words = text.lowercased().split(separator: " ")
        return DiscoverPage(restaurants: rows.filter { row in words.allSatisfy { row.name.lowercased().contains($0) } }, cursor: nil)
    }
}

@Suite struct DiscoverEffectHandlerSearchTests {
    let rows = [Restaurant.fixture("a", "Noodle Bar", minutesAgo: 1), .fixture("b", "Nordic Table", minutesAgo: 2),
                .fixture("c", "Noodle House", minutesAgo: 3)]

    @Test func typingQuicklyQueriesOnceAfterTheDebounce() async {
        let backend = SlowSearchBackend(rows)
        let handler = DiscoverEffectHandler<FakeThumbnail>(backend: backend, thumbnails: nil)
        var state = AppState(config: AppConfig(showsImages: false, formServices: .fake(), searchDebounce: .milliseconds(150)),
                             width: 60, height: 14, now: testNow)
        let loop = Loop()
        #expect(await loop.run(&state, .start, handler: handler) { $0.list.count == 3 })
        _ = update(&state, .key(.character("/")))
        for character in "noodl" {
            for effect in update(&state, .key(.character(character))) { handler.perform(effect, sink: loop.sink) }
        }
        #expect(await loop.run(&state, .key(.character("e")), handler: handler) { $0.search?.resultText == "noodle" })
        #expect(state.list.items.map(\.id) == ["a", "c"])
        #expect(backend.searched.withLock { $0 } == ["noodle"], "each keystroke cancelled the wait before it")
        handler.cancelAll()
    }

    @Test func aSlowStaleSearchNeverReplacesANewerResult() async {
        // "no" takes 300 ms; "noodle" answers at once. The handler cancels "no", and update drops it if it came anyway.
        let backend = SlowSearchBackend(rows, delays: ["no": .milliseconds(300)])
        let handler = DiscoverEffectHandler<FakeThumbnail>(backend: backend, thumbnails: nil)
        var state = AppState(config: AppConfig(showsImages: false, formServices: .fake(), searchDebounce: .zero),
                             width: 60, height: 14, now: testNow)
        let loop = Loop()
        #expect(await loop.run(&state, .start, handler: handler) { $0.list.count == 3 })
        _ = update(&state, .key(.character("/")))
        #expect(await loop.run(&state, .key(.character("n")), handler: handler) { $0.search?.resultText == "n" })
        #expect(await loop.run(&state, .key(.character("o")), handler: handler) { _ in backend.searched.withLock { $0.contains("no") } })
        for character in "odle" {
            for effect in update(&state, .key(.character(character))) { handler.perform(effect, sink: loop.sink) }
        }
        #expect(await loop.run(&state, .tick, handler: handler) { $0.search?.resultText == "noodle" })
        // Wait past the slow search's answer time: the screen still shows "noodle".
        try? await Task.sleep(for: .milliseconds(400))
        _ = await loop.run(&state, .tick, handler: handler) { _ in true }
        #expect(state.search?.resultText == "noodle")
        #expect(state.list.items.map(\.id) == ["a", "c"])
        handler.cancelAll()
    }
}
