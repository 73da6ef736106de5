import FoodPinCore
import Foundation
import LocalCloud
import Synchronization

/// `foodpin-bench discover [--rows N] [--data-dir PATH] [--frames N]`: the Discover screen on a
/// container of N restaurants (default 100,000, generated once with batched saves and reused).
///
/// Measured in process, on the main thread standing in for the UI thread:
/// - launch → first rows: open the container, build backend, loader, handler and `DiscoverApp`,
///   send `.start`, wait for the first page, apply it and draw the first `Grid` (process exec
///   and dynamic linking are not included);
/// - thumbnails: a 24-row screen cold (all 24 started at once, as the app does), one row at a
///   time cold, and from the cache;
/// - frames: `update` + `view` for each `j` through `--frames` rows, with pages and thumbnails
///   arriving from the background as they do in the app;
/// - peak memory: `getrusage` maxrss, and the thumbnail cache against its limits.
struct DiscoverBenchmark {
    var rows = 100_000
    var frames = 5_000
    var dataDirectory: URL?

    init(arguments: [String]) throws {
        var index = 0
        while index < arguments.count {
            let value = index + 1 < arguments.count ? arguments[index + 1] : nil
            switch arguments[index] {
            case "--rows": rows = try Self.int(value, "--rows")
            case "--frames": frames = try Self.int(value, "--frames")
            case "--data-dir":
                guard let value else { throw Bench.Failure(description: "--data-dir needs a path") }
                dataDirectory = URL(fileURLWithPath: value, isDirectory: true)
            default: throw Bench.Failure(description: "unknown argument \(arguments[index])")
            }
            index += 2
        }
    }

    private static func int(_ value: String?, _ name: String) throws -> Int {
        guard let value, let number = Int(value), number > 0 else { throw Bench.Failure(description: "\(name) needs a positive number") }
        return number
    }

    func run() async throws {
        let directory = dataDirectory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("foodpin-bench-discover-\(rows)", isDirectory: true)
        guard let assets = SampleAssets.locate() else { throw Bench.Failure(description: "Assets/ not found; set FOODPIN_ASSETS") }
        let configuration = Container.Configuration(dataDirectory: directory, user: "bench")
        try await DiscoverData(directory: directory, configuration: configuration, assets: assets, rows: rows).prepare()

        print("Discover screen, \(rows) restaurants in \(directory.path)")
        try await measureFirstRows(configuration, assets: assets)
        try await measureThumbnails(configuration)
        try measureFrames(configuration)
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        print(String(format: "peak memory (maxrss): %.1f MB", Double(usage.ru_maxrss) / 1024))
    }

    /// A 100×30 Discover screen on `backend`, run through `inbox` until its first page has loaded.
    private func openDiscover(_ backend: CloudDiscoverBackend, inbox: Inbox) throws
        -> (app: DiscoverApp, handler: DiscoverEffectHandler<Thumbnail>, loader: ThumbnailLoader<Thumbnail>) {
        let loader = backend.thumbnailLoader(renderer: ThumbnailRenderer(colorMode: .colors256))
        let handler = DiscoverEffectHandler(backend: backend, thumbnails: loader)
        let app = DiscoverApp(config: AppConfig(colorMode: .colors256, currentUser: "bench"), handler: handler,
                              width: 100, height: 30)
        app.apply(.resize(width: 100, height: 30), sink: inbox.sink)
        while true {
            let message = try inbox.next(timeout: 10)
            app.apply(message, sink: inbox.sink)
            if case .pageLoaded = message { break }
        }
        return (app, handler, loader)
    }

    // MARK: Launch to first rows

    private func measureFirstRows(_ configuration: Container.Configuration, assets: URL) async throws {
        var times: [Double] = []
        for _ in 0..<5 {
            let inbox = Inbox()
            var grid: Grid?
            let ms = try Bench.milliseconds {
                let container = Container(configuration: configuration)
                let backend = CloudDiscoverBackend(
                    container: container, seeder: SampleSeeder(container: container, assets: assets))
                let screen = try openDiscover(backend, inbox: inbox)
                grid = screen.app.view(width: 100, height: 30)
                screen.handler.cancelAll()
            }
            guard let grid, grid.text.contains("Bench restaurant") else {
                throw Bench.Failure(description: "the first rows were not drawn")
            }
            times.append(ms)
        }
        print(String(format: "launch → first rows drawn: first %.1f ms, median of 5 %.1f ms (target ≤150 ms)",
                     times[0], Bench.median(times)))
        // Where the time goes: a new container's first call, the seeded check, one page query.
        let container = Container(configuration: configuration)
        let backend = CloudDiscoverBackend(container: container)
        let seeder = SampleSeeder(container: container, assets: assets)
        let open = try await Bench.milliseconds { _ = try await backend.firstPage(limit: 1) }
        let check = try await Bench.milliseconds { _ = try await seeder.seedIfNeeded() }
        let query = try await Bench.milliseconds { _ = try await backend.firstPage(limit: 50) }
        print(String(format: "  breakdown: open + first call %.1f ms, seeded check %.1f ms, first page of 50 %.1f ms",
                     open, check, query))
    }

    // MARK: Thumbnails

    private func measureThumbnails(_ configuration: Container.Configuration) async throws {
        let container = Container(configuration: configuration)
        let backend = CloudDiscoverBackend(container: container)
        let ids = try await backend.firstPage(limit: 100).restaurants.map(\.id)
        let loader = backend.thumbnailLoader(renderer: ThumbnailRenderer(colorMode: .colors256))
        let size = ThumbnailSize.row
        // libvips' and libchafa's one-time start-up, paid once per process, not per screen.
        _ = await loader.thumbnail(for: ThumbnailKey(recordID: ids[99], size: size))

        let screen = Array(ids[0..<24]).map { ThumbnailKey(recordID: $0, size: size) }
        let done = DispatchSemaphore(value: 0)
        let failures = Mutex(0)
        let screenTime = Bench.measure {
            for key in screen {
                loader.load(key) { outcome in
                    if case .image = outcome {} else { failures.withLock { $0 += 1 } }
                    done.signal()
                }
            }
            for _ in screen { done.wait() }
        }
        guard failures.withLock({ $0 }) == 0 else { throw Bench.Failure(description: "\(failures.withLock { $0 }) thumbnails failed") }
        // What a 100×30 terminal actually shows: 9 rows of 3 lines.
        let visible = Array(ids[72..<81]).map { ThumbnailKey(recordID: $0, size: size) }
        let visibleTime = Bench.measure {
            for key in visible { loader.load(key) { _ in done.signal() } }
            for _ in visible { done.wait() }
        }

        var oneByOne: [Double] = []
        var fetchOnly: [Double] = []
        var renderOnly: [Double] = []
        let renderer = ThumbnailRenderer(colorMode: .colors256)
        for id in ids[24..<72] {
            oneByOne.append(await Bench.milliseconds {
                _ = await loader.thumbnail(for: ThumbnailKey(recordID: id, size: size))
            })
            var file: URL?
            fetchOnly.append(try await Bench.milliseconds { file = try await backend.imageFile(forRecordName: id) })
            if let file {
                renderOnly.append(try Bench.milliseconds {
                    _ = try renderer.render(fileAt: file, in: CellBox(columns: size.columns, rows: size.rows))
                })
            }
        }
        var cached: [Double] = []
        for key in screen {
            cached.append(await Bench.milliseconds { _ = await loader.thumbnail(for: key) })
        }
        print(String(format: "thumbnails, 24-row screen cold (24 loads at once): %.1f ms wall, %.1f ms CPU (target ≤100 ms)",
                     screenTime.wall, screenTime.cpu))
        print(String(format: "thumbnails, the 9 rows a 100×30 terminal shows, cold: %.1f ms wall, %.1f ms CPU",
                     visibleTime.wall, visibleTime.cpu))
        print(String(format: "thumbnail per row cold, one at a time: median %.2f ms (fetch %.2f ms + render %.2f ms), p99 %.2f ms",
                     Bench.median(oneByOne), Bench.median(fetchOnly), Bench.median(renderOnly), Bench.percentile(oneByOne, 0.99)))
        print(String(format: "thumbnail per row from cache: median %.3f ms, max %.3f ms; fetches %d for %d loads",
                     Bench.median(cached), cached.max() ?? .nan, loader.fetchCount, 1 + 24 + 9 + 48 + 24))
    }

    // MARK: Frames

    private func measureFrames(_ configuration: Container.Configuration) throws {
        let container = Container(configuration: configuration)
        let inbox = Inbox()
        let (app, handler, loader) = try openDiscover(CloudDiscoverBackend(container: container), inbox: inbox)
        _ = app.view(width: 100, height: 30)

        var keyFrames: [Double] = []
        var messageFrames: [Double] = []
        var waits = 0
        let start = DispatchTime.now().uptimeNanoseconds
        while keyFrames.count < frames {
            for message in inbox.takeAll() {
                messageFrames.append(Bench.milliseconds {
                    app.apply(message, sink: inbox.sink)
                    _ = app.view(width: 100, height: 30)
                })
            }
            let list = app.state.list
            if let selected = list.selectedIndex, selected == list.count - 1, list.hasMore {
                // At the end of what is loaded: the next page is on its way (holding a key waits too).
                let message = try inbox.next(timeout: 10)
                waits += 1
                messageFrames.append(Bench.milliseconds {
                    app.apply(message, sink: inbox.sink)
                    _ = app.view(width: 100, height: 30)
                })
                continue
            }
            keyFrames.append(Bench.milliseconds {
                app.apply(.key(.character("j")), sink: inbox.sink)
                _ = app.view(width: 100, height: 30)
            })
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        handler.cancelAll()
        let selected = app.state.list.selectedIndex ?? -1
        guard selected >= frames else { throw Bench.Failure(description: "only reached row \(selected)") }
        let cache = loader.cache
        print(String(format: "frames holding j through %d rows (update+view): p50 %.3f ms, p99 %.3f ms, max %.2f ms (target p99 <16 ms); %.1f s total",
                     frames, Bench.median(keyFrames), Bench.percentile(keyFrames, 0.99), keyFrames.max() ?? .nan, seconds))
        print(String(format: "  %d background messages applied (pages, thumbnails): p50 %.3f ms, p99 %.3f ms; waited for a page %d times",
                     messageFrames.count, Bench.median(messageFrames), Bench.percentile(messageFrames, 0.99), waits))
        print(String(format: "  thumbnail cache: %d entries (limit %d), %.1f KB (limit %.0f KB), %d evictions, %d loads cancelled",
                     cache.count, cache.countLimit, Double(cache.totalCost) / 1024, Double(cache.totalCostLimit) / 1024,
                     cache.statistics.evictions, loader.cancellationCount))
    }
}

/// Messages posted by background effects, taken on the main thread.
final class Inbox: Sendable {
    private let messages = Mutex<[Msg]>([])
    private let available = DispatchSemaphore(value: 0)

    var sink: MessageSink<Msg> {
        MessageSink { [self] message in
            messages.withLock { $0.append(message) }
            available.signal()
        }
    }

    func next(timeout seconds: Double) throws -> Msg {
        guard available.wait(timeout: .now() + seconds) == .success else {
            throw Bench.Failure(description: "no message within \(seconds) s")
        }
        return messages.withLock { $0.removeFirst() }
    }

    func takeAll() -> [Msg] {
        let taken = messages.withLock { messages in
            defer { messages = [] }
            return messages
        }
        for _ in taken { _ = available.wait(timeout: .now()) }
        return taken
    }
}

