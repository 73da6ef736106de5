import Foundation
import Synchronization
import Testing
@testable import FoodPinCore
#if canImport(Glibc)
import Glibc
#endif

/// `update` never touches the disk: the form's image probe and Tab completion listing are effects.
@Suite struct PureUpdateTests {
    /// Form services that record an issue when called on the thread that is inside `update`.
    final class GuardedFileSystem: Sendable {
        private let updateThread = Mutex<pthread_t?>(nil)
        let calls = Recorder<String>()

        var services: FormServices {
            FormServices(
                homeDirectory: "/home/alice",
                listDirectory: { [self] path in
                    check("listDirectory(\(path))")
                    return path == "/home/alice/" ? [.init(name: "Pictures", isDirectory: true)] : nil
                },
                probeImage: { [self] path in
                    check("probeImage(\(path))")
                    return path == "/home/alice/Pictures/food.jpg" ? nil : "No such file"
                })
        }

        private func check(_ call: String) {
            calls.append(call)
            let inside = updateThread.withLock { thread in thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
            if inside { Issue.record("\(call) ran synchronously inside update") }
        }

        /// `update`, marked so the services can tell they were called from inside it.
        func update(_ state: inout AppState, _ msg: Msg) -> [Effect] {
            updateThread.withLock { $0 = pthread_self() }
            defer { updateThread.withLock { $0 = nil } }
            return FoodPinCore.update(&state, msg)
        }
    }

    @Test func keysInTheImageFieldAskForEffectsAndCallNothing() {
        let files = GuardedFileSystem()
        var state = AppState.loaded(restaurants(0..<2), width: 60, height: 24,
                                    config: AppConfig(currentUser: "alice", formServices: files.services))
        var effects = files.update(&state, .key(.character("a")))
        state.form?.setText("N", for: .name)
        state.form?.setText("T", for: .type)
        state.form?.setText("L", for: .location)
        state.form?.focus(.image)
        for c in "~/Pi" { effects += files.update(&state, .key(.character(c))) }
        effects += files.update(&state, .key(.tab))
        effects += files.update(&state, .key(.control("s")))
        #expect(files.calls.count == 0)
        #expect(effects.contains(.probeImage(path: "/home/alice/Pi")))
        #expect(effects.contains(.listDirectory(path: "/home/alice/")))
        #expect(!effects.contains { if case .save = $0 { true } else { false } }, "no save before the probe answers")
    }

    @Test func theFormWorksEndToEndWithTheFileSystemOffTheUIThread() async {
        let files = GuardedFileSystem()
        let backend = FakeBackend(restaurants(0..<2))
        let loader = ThumbnailLoader<FakeThumbnail>(
            cache: LRUCache(countLimit: 10), fetchImageFile: { _ in nil },
            render: { _, size in FakeThumbnail(columns: size.columns, rows: size.rows, fill: "▓") })
        let handler = DiscoverEffectHandler(backend: backend, thumbnails: loader, formServices: files.services)
        var state = AppState(config: AppConfig(currentUser: "alice", formServices: files.services), width: 60, height: 24, now: testNow)
        let inbox = Mutex<[Msg]>([])
        let sink = MessageSink<Msg> { message in inbox.withLock { $0.append(message) } }
        func run(_ msg: Msg, until done: (AppState) -> Bool) async -> Bool {
            for effect in files.update(&state, msg) { handler.perform(effect, sink: sink) }
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(30)
            while !done(state), clock.now < deadline {
                let messages = inbox.withLock { inbox in defer { inbox = [] }; return inbox }
                for message in messages {
                    for effect in files.update(&state, message) { handler.perform(effect, sink: sink) }
                }
                if messages.isEmpty { await Task.yield() }
            }
            return done(state)
        }

        #expect(await run(.start) { $0.list.count == 2 })
        #expect(await run(.key(.character("a"))) { $0.screen == .form })
        for text in ["Noodles", "Ramen", "Tokyo"] {
            for c in text { _ = files.update(&state, .key(.character(c))) }
            _ = files.update(&state, .key(.tab))
        }
        state.form?.focus(.image)
        for c in "~/Pi" { _ = files.update(&state, .key(.character(c))) }
        // Tab, then keys typed before the listing answers: they land after the completion.
        for c in "\tfood.jpg" {
            let key: Key = c == "\t" ? .tab : .character(c)
            for effect in files.update(&state, .key(key)) { handler.perform(effect, sink: sink) }
        }
        #expect(await run(.tick) { $0.form?.text(.image) == "~/Pictures/food.jpg" && $0.form?.preview != nil })
        #expect(await run(.key(.control("s"))) { $0.screen == .list })
        #expect(state.list.items.first?.id == "new-Noodles")
        #expect(files.calls.all.contains("listDirectory(/home/alice/)"))
        #expect(files.calls.all.filter { $0 == "probeImage(/home/alice/Pictures/food.jpg)" }.count == 1,
                "one probe for the image, shared by the preview and the save")
        handler.cancelAll()
    }
}
