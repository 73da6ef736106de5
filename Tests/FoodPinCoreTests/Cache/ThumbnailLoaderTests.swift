import Foundation
import Testing
@testable import FoodPinCore

@Suite struct ThumbnailLoaderTests {
    let file = URL(fileURLWithPath: "/tmp/image.jpg")

    func makeLoader(
        fetch: @escaping @Sendable (String) async throws -> URL?,
        renders: Recorder<String> = Recorder()
    ) -> ThumbnailLoader<FakeThumbnail> {
        ThumbnailLoader(
            cache: LRUCache(countLimit: 10),
            fetchImageFile: fetch,
            render: { url, size in
                renders.append(url.path)
                return FakeThumbnail(columns: size.columns, rows: size.rows)
            })
    }

    @Test func twoRequestsForOneRecordShareOneLoad() async {
        let gate = Gate()
        let fetches = Recorder<String>()
        let renders = Recorder<String>()
        let loader = makeLoader(fetch: { [file] id in
            fetches.append(id)
            await gate.wait()
            return file
        }, renders: renders)
        let key = ThumbnailKey(recordID: "r1", size: .row)
        let results = Recorder<Bool>()
        loader.load(key) { if case .image = $0 { results.append(true) } }
        loader.load(key) { if case .image = $0 { results.append(true) } }
        #expect(loader.fetchCount == 1)
        gate.open()
        #expect(await waitUntil { results.count == 2 })
        #expect(fetches.all == ["r1"])
        #expect(renders.count == 1)
        #expect(loader.loadingKeys.isEmpty)
    }

    @Test func aCachedThumbnailNeedsNoFetch() async {
        let fetches = Recorder<String>()
        let loader = makeLoader(fetch: { [file] id in fetches.append(id); return file })
        let key = ThumbnailKey(recordID: "r1", size: .row)
        guard case .image? = await loader.thumbnail(for: key) else {
            Issue.record("first load should render an image")
            return
        }
        #expect(fetches.count == 1)
        // Scrolling back: the cache answers at once, with no second fetch.
        let results = Recorder<Bool>()
        loader.load(key) { if case .image = $0 { results.append(true) } }
        #expect(results.count == 1, "a cache hit calls back synchronously")
        #expect(fetches.count == 1)
        #expect(loader.fetchCount == 1)
        #expect(loader.cache.statistics.hits == 1)
    }

    @Test func aRowThatScrollsAwayCancelsItsLoad() async {
        let cancelled = Recorder<String>()
        let renders = Recorder<String>()
        let started = Recorder<String>()
        let loader = makeLoader(fetch: { id in
            started.append(id)
            do {
                try await Task.sleep(for: .seconds(60))
            } catch {
                cancelled.append(id)
                throw error
            }
            return nil
        }, renders: renders)
        let results = Recorder<String>()
        for id in ["a", "b"] {
            loader.load(ThumbnailKey(recordID: id, size: .row)) { _ in results.append(id) }
        }
        #expect(await waitUntil { started.count == 2 })
        loader.setVisible(ids: ["b"]) // "a" scrolled away
        #expect(await waitUntil { cancelled.count == 1 })
        #expect(cancelled.all == ["a"])
        #expect(loader.cancellationCount == 1)
        #expect(loader.loadingKeys == [ThumbnailKey(recordID: "b", size: .row)])
        loader.cancelAll()
        #expect(await waitUntil { cancelled.count == 2 })
        #expect(results.count == 0, "a cancelled load never calls back")
        #expect(renders.count == 0)
    }

    @Test func aCancelledKeyCanLoadAgain() async {
        let gate = Gate()
        let loader = makeLoader(fetch: { [file] _ in await gate.wait(); return file })
        let key = ThumbnailKey(recordID: "a", size: .row)
        loader.load(key) { _ in }
        loader.setVisible(ids: [])
        let results = Recorder<Bool>()
        loader.load(key) { if case .image = $0 { results.append(true) } }
        #expect(loader.fetchCount == 2)
        gate.open()
        #expect(await waitUntil { results.count == 1 })
    }

    @Test func noImageAndFailuresAreReported() async {
        struct Broken: Error {}
        let loader = makeLoader(fetch: { id in
            if id == "broken" { throw Broken() }
            return nil
        })
        guard case .noImage? = await loader.thumbnail(for: ThumbnailKey(recordID: "plain", size: .row)) else {
            Issue.record("expected noImage")
            return
        }
        guard case .failed? = await loader.thumbnail(for: ThumbnailKey(recordID: "broken", size: .row)) else {
            Issue.record("expected failed")
            return
        }
        #expect(loader.cache.count == 0)
    }

    @Test func latencyIsInjected() async {
        let waits = Recorder<Duration>()
        let loader = ThumbnailLoader<FakeThumbnail>(
            cache: LRUCache(countLimit: 4), fetchImageFile: { _ in nil },
            render: { _, size in FakeThumbnail(columns: size.columns, rows: size.rows) },
            latency: .milliseconds(800), sleep: { waits.append($0) })
        _ = await loader.thumbnail(for: ThumbnailKey(recordID: "x", size: .row))
        #expect(waits.all == [.milliseconds(800)])
    }

    @Test func filePreviewsShareTheCacheAndSurviveScrolling() async {
        let gate = Gate()
        let renders = Recorder<String>()
        let loader = ThumbnailLoader<FakeThumbnail>(
            cache: LRUCache(countLimit: 4), fetchImageFile: { _ in nil },
            render: { url, size in renders.append(url.path); return FakeThumbnail(columns: size.columns, rows: size.rows) },
            latency: .milliseconds(1), sleep: { _ in await gate.wait() })
        let results = Recorder<Bool>()
        let file = URL(fileURLWithPath: "/pics/food.jpg")
        loader.loadFile(file, size: RestaurantForm.previewSize) { if case .image = $0 { results.append(true) } }
        loader.setVisible(ids: []) // the list scrolled: the preview is not a row
        gate.open()
        #expect(await waitUntil { results.count == 1 })
        #expect(renders.all == ["/pics/food.jpg"])
        #expect(loader.cache.contains(ThumbnailLoader<FakeThumbnail>.previewKey(for: file.path, size: RestaurantForm.previewSize)))
        loader.loadFile(file, size: RestaurantForm.previewSize) { if case .image = $0 { results.append(true) } }
        #expect(results.count == 2 && renders.count == 1, "the second preview comes from the cache")
    }
}

@Suite struct ThumbnailKeyTests {
    @Test func aRecordNamedLikeAFileNeverSharesAFilePreviewsKey() {
        let preview = ThumbnailLoader<FakeThumbnail>.previewKey(for: "/photos/a.jpg", size: .row)
        #expect(ThumbnailKey(recordID: "file:/photos/a.jpg", size: .row) != preview)
        #expect(preview.recordID == nil)
        #expect(ThumbnailKey(recordID: "file:/photos/a.jpg", size: .row).recordID == "file:/photos/a.jpg")
    }
}
