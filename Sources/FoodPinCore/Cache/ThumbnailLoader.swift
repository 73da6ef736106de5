import Foundation
import Synchronization

/// Loads row thumbnails in the background: cache first, one load per key, cancelled when the row leaves.
///
/// ```swift
/// let loader = ThumbnailLoader(cache: cache, fetchImageFile: { id in try await fetchAsset(id) },
///                              render: { url, size in try renderer.render(fileAt: url, in: CellBox(columns: size.columns, rows: size.rows)) })
/// loader.setVisible(ids: ["a", "b"])          // cancels loads for rows that scrolled away
/// loader.load(ThumbnailKey(recordID: "a", size: .row)) { outcome in sink.post(.thumbnailLoaded(...)) }
/// ```
///
/// - A cache hit calls back at once, without fetching.
/// - Two requests for the same key while it loads share one fetch and one render.
/// - Fetching (`FetchRecordsOperation` with `desiredKeys: ["image"]`) and rendering run on
///   background tasks; the completion is called from there, so post it through a `MessageSink`.
package final class ThumbnailLoader<Image: ThumbnailImage>: Sendable {
    package typealias FetchImageFile = @Sendable (_ recordID: String) async throws -> URL?
    package typealias Render = @Sendable (_ file: URL, _ size: ThumbnailSize) throws -> Image

    private struct InFlight {
        let token: Int
        var task: Task<Void, Never>?
        var waiters: [@Sendable (ThumbnailOutcome?) -> Void]
    }

    private struct State {
        var inFlight: [ThumbnailKey: InFlight] = [:]
        var nextToken = 0
        var fetches = 0
        var cancellations = 0
    }

    package let cache: LRUCache<ThumbnailKey, Image>
    private let fetchImageFile: FetchImageFile
    private let render: Render
    private let latency: Duration
    private let sleep: @Sendable (Duration) async throws -> Void
    private let state = Mutex(State())

    /// - Parameters:
    ///   - cache: where finished thumbnails go, with their memory size as cost.
    ///   - fetchImageFile: returns the local file of a record's image, or `nil` if it has none.
    ///   - render: decodes and renders a file into cells; runs off the UI thread.
    ///   - latency: an extra delay before each fetch (tests and demos); `sleep` waits it out.
    package init(
        cache: LRUCache<ThumbnailKey, Image>,
        fetchImageFile: @escaping FetchImageFile,
        render: @escaping Render,
        latency: Duration = .zero,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.cache = cache
        self.fetchImageFile = fetchImageFile
        self.render = render
        self.latency = latency
        self.sleep = sleep
    }

    /// How many fetches have started (a cache hit or a coalesced request starts none).
    package var fetchCount: Int { state.withLock { $0.fetches } }
    /// How many in-flight loads were cancelled.
    package var cancellationCount: Int { state.withLock { $0.cancellations } }
    /// Keys loading right now.
    package var loadingKeys: Set<ThumbnailKey> { state.withLock { Set($0.inFlight.keys) } }

    /// Starts loading `key` unless it is cached or already loading, and calls `completion`
    /// with the outcome. A cancelled load never calls back.
    package func load(_ key: ThumbnailKey, completion: @escaping @Sendable (ThumbnailOutcome) -> Void) {
        start(key) { outcome in
            if let outcome { completion(outcome) }
        }
    }

    /// Loads `key` and waits for it; `nil` if the load was cancelled.
    package func thumbnail(for key: ThumbnailKey) async -> ThumbnailOutcome? {
        await withCheckedContinuation { continuation in
            start(key) { continuation.resume(returning: $0) }
        }
    }

    /// Renders a local file (the form's live preview) through the same cache and coalescing,
    /// keyed by ``previewKey(for:size:)``.
    package func loadFile(_ file: URL, size: ThumbnailSize, completion: @escaping @Sendable (ThumbnailOutcome) -> Void) {
        start(Self.previewKey(for: file.path, size: size), fetch: { file }) { outcome in
            if let outcome { completion(outcome) }
        }
    }

    /// The cache key of a file preview.
    package static func previewKey(for path: String, size: ThumbnailSize) -> ThumbnailKey {
        ThumbnailKey(source: .file(path), size: size)
    }

    /// Cancels every load whose record is not among `ids` (its row scrolled away).
    /// File previews are left alone: the form asked for them, not a row.
    package func setVisible(ids: Set<String>) {
        cancel { key in
            guard case .record(let id) = key.source else { return false }
            return !ids.contains(id)
        }
    }

    /// Cancels everything (the app is quitting).
    package func cancelAll() { cancel { _ in true } }

    /// Drops the cached thumbnails of these records (every size) and cancels their loads: the
    /// record changed, perhaps its photo, so the next load fetches it again.
    package func forget(recordIDs: Set<String>) {
        guard !recordIDs.isEmpty else { return }
        cancel { key in key.recordID.map(recordIDs.contains) ?? false }
        for key in cache.keysByRecency where key.recordID.map(recordIDs.contains) ?? false {
            _ = cache.removeValue(forKey: key)
        }
    }

    private func cancel(where shouldCancel: (ThumbnailKey) -> Bool) {
        let cancelled: [InFlight] = state.withLock { state in
            let gone = state.inFlight.filter { shouldCancel($0.key) }
            for key in gone.keys { state.inFlight[key] = nil }
            state.cancellations += gone.count
            return Array(gone.values)
        }
        for entry in cancelled {
            entry.task?.cancel()
            for waiter in entry.waiters { waiter(nil) }
        }
    }

    private func start(_ key: ThumbnailKey, waiter: @escaping @Sendable (ThumbnailOutcome?) -> Void) {
        switch key.source {
        case .record(let id):
            let fetchImageFile = fetchImageFile
            start(key, fetch: { try await fetchImageFile(id) }, waiter: waiter)
        case .file(let path):
            start(key, fetch: { URL(fileURLWithPath: path) }, waiter: waiter)
        }
    }

    private func start(
        _ key: ThumbnailKey, fetch: @escaping @Sendable () async throws -> URL?,
        waiter: @escaping @Sendable (ThumbnailOutcome?) -> Void
    ) {
        if let image = cache.value(forKey: key) {
            waiter(.image(image))
            return
        }
        state.withLock { state in
            if state.inFlight[key] != nil {
                state.inFlight[key]?.waiters.append(waiter)
                return
            }
            let token = state.nextToken
            state.nextToken += 1
            state.fetches += 1
            state.inFlight[key] = InFlight(token: token, task: nil, waiters: [waiter])
            // The task cannot finish before it is stored: finishing takes this same lock.
            state.inFlight[key]?.task = Task.detached { [self] in
                let outcome = await self.run(key, fetch: fetch)
                self.finish(key, token: token, outcome: outcome)
            }
        }
    }

    private func run(_ key: ThumbnailKey, fetch: @Sendable () async throws -> URL?) async -> ThumbnailOutcome? {
        do {
            if latency > .zero { try await sleep(latency) }
            try Task.checkCancellation()
            guard let file = try await fetch() else { return .noImage }
            try Task.checkCancellation()
            let image = try render(file, key.size)
            cache.setValue(image, forKey: key, cost: image.cost)
            return .image(image)
        } catch is CancellationError {
            return nil
        } catch {
            if Task.isCancelled { return nil }
            return .failed(String(describing: error))
        }
    }

    private func finish(_ key: ThumbnailKey, token: Int, outcome: ThumbnailOutcome?) {
        let waiters: [@Sendable (ThumbnailOutcome?) -> Void] = state.withLock { state in
            guard let entry = state.inFlight[key], entry.token == token else { return [] }
            state.inFlight[key] = nil
            return entry.waiters
        }
        for waiter in waiters { waiter(outcome) }
    }
}
