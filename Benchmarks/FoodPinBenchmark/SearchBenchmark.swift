import FoodPinCore
import Foundation
import LocalCloud

/// `foodpin-bench search [--rows N] [--data-dir PATH] [--remote]`: the `/` search on a container of N
/// restaurants (default 100,000; the same generated container as `discover`).
///
/// With `--remote`, the container is served by a `localcloud serve` this starts on a loopback port
/// (the `localcloud` next to this binary, or `LOCALCLOUD_BIN`), and the app reads it as a remote
/// container (RemoteStore over libcurl, with its response cache), as `foodpin login` users do.
///
/// Measured in process, on the main thread standing in for the UI thread: for each keystroke
/// of a few typed queries, `update` for the key, the search query through
/// `DiscoverEffectHandler` and `CloudDiscoverBackend` (LocalCloud's FTS5 search as typed, `Predicate.textSearch(asTyped:)`,
/// newest first, a page of 50), `update` for the results and `view` of the 100×30 screen.
/// The 150 ms debounce is set to zero: it is a wait by design, not work, and in the app it
/// runs only once the typing pauses.
struct SearchBenchmark {
    var rows = 100_000
    var dataDirectory: URL?
    var rounds = 5
    var remote = false
    /// What is typed, one keystroke at a time: a name as people type it (`c`, `ca`, `caf`, `cafe`,
    /// `cafe d`, `cafe de` for Café Déjà Vu), narrow and broad words, CJK from its first character
    /// and by a substring (`麵` in `拉麵 一番`), a miss, and "bench restaurant", whose words are in
    /// every one of the N rows.
    static let queries = ["cafe de", "tonkotsu", "ramen tokyo", "pizza naples", "拉麵", "麵", "xyz", "bench restaurant 4242"]

    init(arguments: [String]) throws {
        var index = 0
        while index < arguments.count {
            if arguments[index] == "--remote" {
                remote = true
                index += 1
                continue
            }
            let value = index + 1 < arguments.count ? arguments[index + 1] : nil
            switch arguments[index] {
            case "--rows":
                guard let value, let number = Int(value), number > 0 else { throw Bench.Failure(description: "--rows needs a positive number") }
                rows = number
            case "--rounds":
                guard let value, let number = Int(value), number > 0 else { throw Bench.Failure(description: "--rounds needs a positive number") }
                rounds = number
            case "--data-dir":
                guard let value else { throw Bench.Failure(description: "--data-dir needs a path") }
                dataDirectory = URL(fileURLWithPath: value, isDirectory: true)
            default: throw Bench.Failure(description: "unknown argument \(arguments[index])")
            }
            index += 2
        }
    }

    func run() async throws {
        let directory = dataDirectory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("foodpin-bench-discover-\(rows)", isDirectory: true)
        guard let assets = SampleAssets.locate() else { throw Bench.Failure(description: "Assets/ not found; set FOODPIN_ASSETS") }
        let configuration = Container.Configuration(dataDirectory: directory, user: "bench")
        try await DiscoverData(directory: directory, configuration: configuration, assets: assets, rows: rows).prepare()
        var server: LocalServer?
        var clientConfiguration = configuration
        if remote {
            let started = try LocalServer.start(dataDirectory: directory)
            server = started
            clientConfiguration = Container.Configuration(
                dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("foodpin-bench-search-client-\(UUID().uuidString)"),
                user: "bench")
            clientConfiguration.serverURL = started.url
            clientConfiguration.apiToken = started.apiToken
        }
        defer {
            server?.stop()
            if remote { try? FileManager.default.removeItem(at: clientConfiguration.dataDirectory) }
        }
        print("Search, \(rows) restaurants in \(directory.path)" + (server.map { " served by localcloud serve at \($0.url.absoluteString)" } ?? ""))

        let container = Container(configuration: clientConfiguration)
        let backend = CloudDiscoverBackend(container: container)
        let loader = backend.thumbnailLoader(renderer: ThumbnailRenderer(colorMode: .colors256))
        let handler = DiscoverEffectHandler(backend: backend, thumbnails: loader)
        let app = DiscoverApp(config: AppConfig(colorMode: .colors256, currentUser: "bench", searchDebounce: .zero),
                              handler: handler, width: 100, height: 30)
        let inbox = Inbox()
        app.apply(.resize(width: 100, height: 30), sink: inbox.sink)
        while true {
            let message = try inbox.next(timeout: 10)
            app.apply(message, sink: inbox.sink)
            if case .pageLoaded = message { break }
        }
        _ = app.view(width: 100, height: 30)

        var all: [Double] = []
        var allCPU: [Double] = []
        var byQuery: [String: [Double]] = [:]
        var found: [String: String] = [:]
        // One warm-up round (SQLite's page cache, FTS5's first use), then the measured rounds.
        for round in 0...rounds {
            for query in Self.queries {
                app.apply(.key(.character("/")), sink: inbox.sink)
                for character in query {
                    var grid: Grid?
                    let (ms, cpu) = try Bench.measure {
                        app.apply(.key(.character(character)), sink: inbox.sink)
                        // Until the answer to this keystroke is in (thumbnail messages are applied on the way).
                        while app.state.search?.isSearching == true {
                            app.apply(try inbox.next(timeout: 10), sink: inbox.sink)
                        }
                        grid = app.view(width: 100, height: 30)
                    }
                    guard round > 0 else { continue }
                    all.append(ms)
                    allCPU.append(cpu)
                    byQuery[query, default: []].append(ms)
                    if let title = grid?.lines.first { found[query] = title.trimmingCharacters(in: .whitespaces) }
                }
                app.apply(.key(.escape), sink: inbox.sink)
                for message in inbox.takeAll() { app.apply(message, sink: inbox.sink) }
            }
        }
        handler.cancelAll()
        print(String(format: "keystroke → results drawn (update, query, update, view), %d keystrokes: p50 %.2f ms, p99 %.2f ms, max %.2f ms (target p99 ≤%d ms)",
                     all.count, Bench.median(all), Bench.percentile(all, 0.99), all.max() ?? .nan, remote ? 60 : 30))
        print(String(format: "  CPU time of the process (this thread and the query's), same keystrokes: p50 %.2f ms, p99 %.2f ms, max %.2f ms",
                     Bench.median(allCPU), Bench.percentile(allCPU, 0.99), allCPU.max() ?? .nan))
        let narrow = zip(Self.queries.flatMap { query in Array(repeating: query, count: query.count) }.cycled(rounds), all)
            .filter { $0.0 != "bench restaurant 4242" }.map(\.1)
        print(String(format: "  without \"bench restaurant 4242\" (words in all %d rows): p99 %.2f ms", rows,
                     Bench.percentile(narrow, 0.99)))
        for query in Self.queries {
            let times = byQuery[query] ?? []
            let label = "\"\(query)\"".padding(toLength: 24, withPad: " ", startingAt: 0)
            print("  " + label + String(format: " p50 %6.2f ms, max %6.2f ms   ", Bench.median(times), times.max() ?? .nan)
                  + (found[query] ?? ""))
        }
    }
}

extension Array {
    /// The array repeated `times` times.
    func cycled(_ times: Int) -> [Element] { (0..<times).flatMap { _ in self } }
}
