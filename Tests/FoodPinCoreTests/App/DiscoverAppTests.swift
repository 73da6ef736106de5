import Foundation
import Synchronization
import Testing
@testable import FoodPinCore

/// Records effects; optionally answers them at once, like a store with no latency.
final class RecordingHandler: EffectHandler {
    var effects: [Effect] = []
    var answer: ((Effect) -> Msg?)?

    func perform(_ effect: Effect, sink: MessageSink<Msg>) {
        effects.append(effect)
        if let message = answer?(effect) { sink.post(message) }
    }
}

/// A sink that queues messages so the test can apply them as the UI loop would.
final class MessageQueue: Sendable {
    private let messages = Mutex<[Msg]>([])
    var sink: MessageSink<Msg> { MessageSink { [self] message in messages.withLock { $0.append(message) } } }
    func drain() -> [Msg] {
        messages.withLock { messages in
            defer { messages = [] }
            return messages
        }
    }
}

@Suite struct DiscoverAppTests {
    func makeApp(_ handler: RecordingHandler, config: AppConfig = AppConfig(currentUser: "alice", formServices: .fake())) -> DiscoverApp {
        DiscoverApp(config: config, handler: handler, width: 60, height: 14, clock: { testNow })
    }

    @Test func mapsEventsToMessages() {
        let app = makeApp(RecordingHandler())
        guard case .key(.character("j"))? = app.message(for: .key(.character("j"))) else {
            Issue.record("a key becomes .key")
            return
        }
        guard case .resize(width: 100, height: 30)? = app.message(for: .resize(width: 100, height: 30)) else {
            Issue.record("a resize becomes .resize")
            return
        }
        #expect(app.message(for: .tick) == nil, "no ticks are needed while idle")
    }

    @Test func theFirstMessageStartsLoadingAndEffectsReachTheHandler() {
        let handler = RecordingHandler()
        let queue = MessageQueue()
        handler.answer = { effect in
            if case .loadFirstPage = effect { return .pageLoaded(.first, .success(page(restaurants(0..<3)))) }
            return nil
        }
        let app = makeApp(handler)
        #expect(app.tickInterval == nil)
        app.apply(.resize(width: 60, height: 14), sink: queue.sink)
        #expect(handler.effects == [.loadFirstPage(limit: 50), .subscribeToChanges, .watchReachability, .subscribeToListChanges])
        #expect(app.tickInterval == .milliseconds(80), "ticks while the spinner shows")
        #expect(app.message(for: .tick) != nil)
        for message in queue.drain() { app.apply(message, sink: queue.sink) }
        #expect(app.tickInterval == nil)
        #expect(app.state.list.count == 3)
        #expect(handler.effects.last == .loadThumbnails(ids: ["r0", "r1", "r2"], size: .row))
        #expect(app.view(width: 60, height: 14).lines[2].contains("Restaurant r0"))
    }

    @Test func qQuitsWithZero() {
        let handler = RecordingHandler()
        let app = makeApp(handler)
        app.apply(.pageLoaded(.first, .success(page(restaurants(0..<2)))), sink: MessageQueue().sink)
        #expect(!app.shouldQuit)
        app.apply(.key(.character("q")), sink: MessageQueue().sink)
        #expect(app.shouldQuit)
        #expect(app.exitCode == 0)
        #expect(handler.effects.last == .quit)
    }

    @Test func aDifferentSizeAtDrawTimeRelaysOut() {
        let handler = RecordingHandler()
        let app = makeApp(handler)
        let queue = MessageQueue()
        app.apply(.pageLoaded(.first, .success(page(restaurants(0..<20)))), sink: queue.sink)
        for _ in 0..<10 { app.apply(.key(.character("j")), sink: queue.sink) }
        let grid = app.view(width: 60, height: 40)
        #expect(app.state.height == 40)
        #expect(grid.text.contains("Restaurant r10"))
        #expect(app.view(width: 30, height: 8).text.contains("Terminal too small"))
        #expect(app.view(width: 60, height: 14).text.contains("Restaurant r10"), "and back")
    }

    @Test func debugShowsCacheCounters() {
        let handler = RecordingHandler()
        let app = DiscoverApp(config: AppConfig(debug: true, formServices: .fake()), handler: handler, width: 80, height: 14,
                              clock: { testNow }, debugStatus: { "cache 3 hit 1 miss" })
        app.apply(.pageLoaded(.first, .success(page(restaurants(0..<2)))), sink: MessageQueue().sink)
        #expect(app.view(width: 80, height: 14).lines[0].contains("cache 3 hit 1 miss"))
    }
}
