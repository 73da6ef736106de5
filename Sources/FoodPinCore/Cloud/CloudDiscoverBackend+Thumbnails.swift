import Foundation
import LocalCloud

extension CloudDiscoverBackend {
    /// The thumbnail cache's default limits: enough for a long scroll back, and a fixed memory bound.
    package static let defaultThumbnailCountLimit = 2_000
    package static let defaultThumbnailCostLimit = 24 * 1024 * 1024

    /// A loader that fetches each row's image with ``imageFile(forRecordName:)`` and renders it
    /// with libvips and libchafa into the requested cell box.
    ///
    /// ```swift
    /// let loader = backend.thumbnailLoader(renderer: ThumbnailRenderer(colorMode: mode))
    /// let handler = DiscoverEffectHandler(backend: backend, thumbnails: loader)
    /// ```
    ///
    /// Fetch and render run on the loader's detached tasks, so on the cooperative pool:
    /// at most one render per core at a time, never on the UI thread.
    ///
    /// With `lists`, a list entry's key (``RestaurantListRecord/thumbnailID(entry:in:)``) loads
    /// the entry's own thumbnail, from the private or shared database.
    package func thumbnailLoader(
        renderer: ThumbnailRenderer, lists: CloudListsBackend? = nil,
        cache: LRUCache<ThumbnailKey, Thumbnail> = LRUCache(
            countLimit: CloudDiscoverBackend.defaultThumbnailCountLimit,
            totalCostLimit: CloudDiscoverBackend.defaultThumbnailCostLimit)
    ) -> ThumbnailLoader<Thumbnail> {
        ThumbnailLoader(
            cache: cache,
            fetchImageFile: { [self] recordName in
                if let lists, let entry = RestaurantListRecord.parseThumbnailID(recordName) {
                    return try await lists.thumbnailFile(forEntry: entry.entry, in: entry.ref)
                }
                return try await imageFile(forRecordName: recordName)
            },
            render: { file, size in
                try renderer.render(fileAt: file, in: CellBox(columns: size.columns, rows: size.rows))
            })
    }
}
