import Foundation
import Synchronization
import Testing
@testable import FoodPinCore

/// An in-memory backend: restaurants newest first, cursors are offsets.
final class FakeBackend: DiscoverBackend {
    struct Denied: Error, CustomStringConvertible { var description: String { "Permission Failure" } }
    let rows: Mutex<[Restaurant]>
    let continuation = Mutex<AsyncStream<[RemoteChange]>.Continuation?>(nil)

    init(_ rows: [Restaurant]) { self.rows = Mutex(rows) }

    func firstPage(limit: Int) async throws -> DiscoverPage { slice(from: 0, limit: limit) }

    func nextPage(after cursor: PageCursor, limit: Int) async throws -> DiscoverPage {
        guard let offset = cursor.token as? Int else { throw DiscoverError(.loadFailed, "bad cursor") }
        return slice(from: offset, limit: limit)
    }

    func save(_ draft: RestaurantDraft) async throws -> Restaurant {
        if draft.name == "fail" { throw DiscoverError(.invalidImage, "corrupt image", field: .image) }
        let restaurant = Restaurant(id: "new-\(draft.name)", name: draft.name, type: draft.type, location: draft.location,
                                    createdAt: testNow, createdBy: "alice")
        rows.withLock { $0.insert(restaurant, at: 0) }
        return restaurant
    }

    func delete(id: String) async throws {
        let owner = rows.withLock { rows in rows.first { $0.id == id }?.createdBy }
        guard owner == "alice" else { throw Denied() }
        rows.withLock { $0.removeAll { $0.id == id } }
    }

    func changes() -> AsyncStream<[RemoteChange]> {
        AsyncStream { continuation in self.continuation.withLock { $0 = continuation } }
    }

    private func slice(from offset: Int, limit: Int) -> DiscoverPage {
        rows.withLock { rows in
            let end = min(rows.count, offset + limit)
            return DiscoverPage(restaurants: Array(rows[min(offset, end)..<end]), cursor: end < rows.count ? PageCursor(end) : nil)
        }
    }
}

/// Drives update + handler the way the UI loop does: messages from the sink are applied in order.
final class Loop: Sendable {
    let inbox = Mutex<[Msg]>([])
    var sink: MessageSink<Msg> { MessageSink { [self] message in inbox.withLock { $0.append(message) } } }

    /// Applies effects through the handler, then waits until `done` holds, applying messages as they come.
    func run(_ state: inout AppState, _ msg: Msg, handler: some EffectHandler,
             until done: (AppState) -> Bool) async -> Bool {
        for effect in update(&state, msg) { handler.perform(effect, sink: sink) }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(30)
        while !done(state), clock.now < deadline {
            let messages = inbox.withLock { inbox in
                defer { inbox = [] }
                return inbox
            }
            for message in messages {
                for effect in update(&state, message) { handler.perform(effect, sink: sink) }
            }
            if messages.isEmpty { try? await Task.sleep(for: .milliseconds(2)) }
        }
        return done(state)
    }
}

@Suite struct DiscoverEffectHandlerTests {
    func setUp(_ rows: [Restaurant]) -> (FakeBackend, DiscoverEffectHandler<FakeThumbnail>, ThumbnailLoader<FakeThumbnail>, Recorder<String>) {
        let backend = FakeBackend(rows)
        let fetches = Recorder<String>()
        let loader = ThumbnailLoader<FakeThumbnail>(
            cache: LRUCache(countLimit: 100),
            fetchImageFile: { id in fetches.append(id); return URL(fileURLWithPath: "/img/\(id).jpg") },
            render: { _, size in FakeThumbnail(columns: size.columns, rows: size.rows) })
        return (backend, DiscoverEffectHandler(backend: backend, thumbnails: loader), loader, fetches)
    }

    @Test func pagesThumbnailsAndScrollingBackFromTheCache() async {
        let (_, handler, loader, fetches) = setUp(restaurants(0..<120))
        var state = AppState(config: AppConfig(currentUser: "alice", pageSize: 50, formServices: .fake()), width: 60, height: 14, now: testNow)
        let loop = Loop()
        #expect(await loop.run(&state, .start, handler: handler) { $0.list.count == 50 && $0.thumbnails.count == 3 })
        #expect(fetches.count == 3)
        // Jump to the end: the next page loads with its cursor; rows at the bottom get thumbnails.
        #expect(await loop.run(&state, .key(.end), handler: handler) { $0.list.count == 100 && !$0.isLoadingMore })
        #expect(await loop.run(&state, .key(.end), handler: handler) { $0.list.count == 120 && !$0.list.hasMore })
        #expect(Set(state.list.items.map(\.id)).count == 120)
        // Back to the top: those three thumbnails come from the cache, with no new fetch for them.
        let before = fetches.all.filter { ["r0", "r1", "r2"].contains($0) }.count
        #expect(await loop.run(&state, .key(.home), handler: handler) { $0.thumbnails.count == 3 })
        #expect(fetches.all.filter { ["r0", "r1", "r2"].contains($0) }.count == before)
        #expect(loader.cache.statistics.hits >= 3)
        #expect(handler.debugStatus.hasPrefix("cache "))
    }

    @Test func saveDeleteAndLiveChanges() async {
        let (backend, handler, _, _) = setUp([.fixture("b1", minutesAgo: 1, by: "bob"), .fixture("a1", minutesAgo: 2)])
        var state = AppState(config: AppConfig(currentUser: "alice", formServices: .fake()), width: 60, height: 14, now: testNow)
        let loop = Loop()
        #expect(await loop.run(&state, .start, handler: handler) { $0.list.count == 2 })

        // Someone else adds one: the banner appears without a key.
        backend.continuation.withLock { _ = $0?.yield([RemoteChange(recordID: "b2", kind: .created)]) }
        #expect(await loop.run(&state, .tick, handler: handler) { $0.liveBannerText == "1 new restaurant — press r" })

        // A failing save keeps the form with an inline error.
        _ = update(&state, .key(.character("a")))
        state.form?.setText("fail", for: .name)
        state.form?.setText("T", for: .type)
        state.form?.setText("L", for: .location)
        #expect(await loop.run(&state, .key(.control("s")), handler: handler) { $0.form?.errors[.image] == "corrupt image" })
        state.form?.setText("Noodles", for: .name)
        #expect(await loop.run(&state, .key(.control("s")), handler: handler) { $0.screen == .list })
        #expect(state.list.items.first?.id == "new-Noodles")
        #expect(state.list.selected?.id == "new-Noodles")

        // Deleting bob's is refused by the store too (the UI's check aside): the row comes back.
        _ = update(&state, .key(.character("j")))
        #expect(state.list.selected?.id == "b1")
        state.config.currentUser = nil // skip the local check to exercise the store's answer
        _ = update(&state, .key(.character("d")))
        #expect(await loop.run(&state, .key(.character("y")), handler: handler) { $0.errorBanner != nil })
        #expect(state.errorBanner?.message.contains("Permission Failure") == true)
        #expect(state.list.restaurant(withID: "b1") != nil)

        handler.cancelAll()
        #expect(await waitUntil { handler.runningTaskCount == 0 })
    }
}
