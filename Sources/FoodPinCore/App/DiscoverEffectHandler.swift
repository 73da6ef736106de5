import Foundation
import Synchronization

/// Runs Discover effects against a ``DiscoverBackend`` and a ``ThumbnailLoader`` on background tasks,
/// and posts every result back through the sink.
///
/// ```swift
/// let handler = DiscoverEffectHandler(backend: CloudDiscoverBackend(container: container), thumbnails: loader)
/// let app = DiscoverApp(config: config, handler: handler, debugStatus: { handler.debugStatus })
/// ```
package final class DiscoverEffectHandler<Image: ThumbnailImage>: EffectHandler, Sendable {
    let backend: any DiscoverBackend
    /// The Lists screens' store; `nil` where lists are not available (their keys then say so).
    let lists: (any ListsBackend)?
    private let thumbnails: ThumbnailLoader<Image>?
    private let formServices: FormServices
    private let linkOpener: LinkOpener
    /// Running tasks by token, so quitting can cancel them; each removes itself when done.
    private let tasks = Mutex<(next: Int, running: [Int: Task<Void, Never>])>((0, [:]))
    /// The one search in flight (waiting out its debounce or querying); a newer one cancels it.
    let searchTask = Mutex<Task<Void, Never>?>(nil)

    /// - Parameters:
    ///   - thumbnails: `nil` under `--no-images`.
    ///   - formServices: the file system the form's image probe and Tab completion read.
    ///   - linkOpener: what `o` opens the map link with.
    package init(backend: any DiscoverBackend, thumbnails: ThumbnailLoader<Image>?, formServices: FormServices = .live,
                 linkOpener: LinkOpener = .unavailable, lists: (any ListsBackend)? = nil) {
        self.backend = backend
        self.lists = lists
        self.thumbnails = thumbnails
        self.formServices = formServices
        self.linkOpener = linkOpener
    }

    package func perform(_ effect: Effect, sink: MessageSink<Msg>) {
        let backend = backend
        switch effect {
        case .loadFirstPage(let limit):
            run {
                // A remote container's last page first, at once; the server's answer follows it.
                if let cached = await backend.cachedFirstPage(limit: limit) { sink.post(.pageLoaded(.cached, .success(cached))) }
                sink.post(.pageLoaded(.first, await Self.result { try await backend.firstPage(limit: limit) }))
            }
        case .refresh(let limit):
            run { sink.post(.pageLoaded(.refresh, await Self.result { try await backend.refresh(limit: limit) })) }
        case .loadNextPage(let cursor, let limit):
            run { sink.post(.pageLoaded(.next, await Self.result { try await backend.nextPage(after: cursor, limit: limit) })) }
        case .loadThumbnails(let ids, let size):
            guard let thumbnails else { return }
            thumbnails.setVisible(ids: Set(ids))
            let loading = thumbnails.loadingKeys
            for id in ids {
                let key = ThumbnailKey(recordID: id, size: size)
                if loading.contains(key) { continue } // its completion is already on the way
                thumbnails.load(key) { sink.post(.thumbnailLoaded(key, $0)) }
            }
        case .probeImage(let path):
            let probe = formServices.probeImage
            run { sink.post(.imageProbed(path: path, problem: probe(path))) }
        case .listDirectory(let path):
            let list = formServices.listDirectory
            run { sink.post(.directoryListed(path: path, entries: list(path))) }
        case .loadPreview(let path, let size):
            thumbnails?.loadFile(URL(fileURLWithPath: path), size: size) { sink.post(.previewLoaded(path: path, $0)) }
        case .save(let draft):
            run {
                do { sink.post(.saveSucceeded(try await backend.save(draft))) } catch {
                    sink.post(.saveFailed(DiscoverError(error, while: .saveFailed)))
                }
            }
        case .saveEdit(let edit):
            run {
                do { sink.post(.editSucceeded(try await backend.update(edit))) } catch {
                    sink.post(.saveFailed(DiscoverError(error, while: .saveFailed)))
                }
            }
        case .forgetThumbnails(let ids):
            thumbnails?.forget(recordIDs: Set(ids))
        case .watchReachability:
            run {
                for await reachable in backend.reachability() {
                    sink.post(.reachabilityChanged(reachable))
                }
            }
        case .discardRefusedEdit(let id):
            run {
                do { try await backend.discardRefusedEdit(id: id) } catch {
                    sink.post(.saveFailed(DiscoverError(error, while: .saveFailed)))
                }
            }
        case .delete(let id):
            run {
                do {
                    try await backend.delete(id: id)
                    sink.post(.deleteSucceeded(id: id))
                } catch {
                    sink.post(.deleteFailed(id: id, DiscoverError(error, while: .deleteFailed)))
                }
            }
        case .subscribeToChanges:
            run {
                for await changes in backend.changes() where !changes.isEmpty {
                    sink.post(.remoteChanges(changes))
                }
            }
        case .search(let request):
            startSearch(request, sink: sink)
        case .loadNextSearchPage(let cursor, let request):
            run {
                let result = await Self.result { try await backend.nextPage(after: cursor, limit: request.limit) }
                sink.post(.searchLoaded(request, .next, result))
            }
        case .cancelSearch:
            searchTask.withLock { task in
                task?.cancel()
                task = nil
            }
        case .openLink(let link):
            let opener = linkOpener
            run { sink.post(.linkOpened(link, opened: opener.open(link.target))) }
        case .quit:
            cancelAll()
        case .loadLists, .loadListEntries, .saveToList, .removeListEntry, .subscribeToListChanges:
            performListEffect(effect, sink: sink)
        }
    }

    /// Cache counters for `foodpin --debug`.
    package var debugStatus: String {
        guard let cache = thumbnails?.cache else { return "images off" }
        let stats = cache.statistics
        return "cache \(cache.count) hit \(stats.hits) miss \(stats.misses) evict \(stats.evictions)"
    }

    /// Cancels background work (on quit).
    package func cancelAll() {
        let running = tasks.withLock { tasks in
            defer { tasks.running = [:] }
            return Array(tasks.running.values)
        }
        running.forEach { $0.cancel() }
        searchTask.withLock { $0?.cancel() }
        thumbnails?.cancelAll()
    }

    /// Number of background tasks still running (tests).
    var runningTaskCount: Int { tasks.withLock { $0.running.count } }

    func run(_ work: @escaping @Sendable () async -> Void) {
        tasks.withLock { tasks in
            let token = tasks.next
            tasks.next += 1
            // Stored under the lock before it can finish, since finishing takes the same lock.
            tasks.running[token] = Task.detached { [self] in
                await work()
                _ = self.tasks.withLock { $0.running.removeValue(forKey: token) }
            }
        }
    }

    static func result(_ work: () async throws -> DiscoverPage) async -> Result<DiscoverPage, DiscoverError> {
        do { return .success(try await work()) } catch { return .failure(DiscoverError(error, while: .loadFailed)) }
    }
}
