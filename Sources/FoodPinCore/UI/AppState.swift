import Foundation

/// Everything the Discover app shows, as a value: `update` changes it, `view` draws it.
package struct AppState: Sendable {
    package enum Screen: Hashable, Sendable {
        case list
        case detail(id: String)
        case form
        /// `l`: my lists and those shared with me.
        case lists
        /// A list's entries (``ListsScreen/open``).
        case listEntries
    }

    /// A one-line error with the effect that `r` retries, if any.
    package struct ErrorBanner: Hashable, Sendable {
        package var message: String
        package var retry: Effect?
    }

    package var config: AppConfig
    package internal(set) var screen: Screen = .list
    package internal(set) var isHelpVisible = false
    package internal(set) var width: Int
    package internal(set) var height: Int
    /// The time "added 5 min ago" is measured from; the app sets it before each frame (the
    /// server's time when this machine's clock is off).
    package var now: Date
    /// On a server: its clock minus this machine's, in seconds (`nil`: local, or not known yet).
    /// The status line says when this machine's clock is off.
    package var clockOffset: TimeInterval?
    package internal(set) var list = DiscoverList()
    /// The first list row on screen.
    package internal(set) var scrollOffset = 0
    package internal(set) var isLoadingFirstPage = false
    /// The list shows the cached first page while the server's is on its way.
    package internal(set) var isShowingCachedPage = false
    package internal(set) var isRefreshing = false
    /// `r` came while a refresh was on its way, which may have left before a change the reader
    /// expects to see (a revoked sign-in, another machine's save): one more refresh follows it.
    package internal(set) var isRefreshQueued = false
    package internal(set) var isLoadingMore = false
    package internal(set) var spinnerPhase = 0
    package internal(set) var errorBanner: ErrorBanner?
    /// Other users' changes since the last refresh, by record ID (the live banner).
    package internal(set) var liveChanges: [String: RemoteChange.Kind] = [:]
    /// The change tags of the updates in ``liveChanges``, when known (see ``listShows(_:)``).
    var liveChangeTags: [String: String] = [:]
    /// The server did not answer (the last page came from the cache, or the push stream dropped
    /// and a probe failed); `false` again once it answers.
    package internal(set) var isOffline = false
    /// The container's last word on the server (`nil`: none yet, or a local container). It
    /// outranks a page that arrives after it: that page was read before the server went away.
    var serverReachable: Bool?
    /// The restaurant awaiting "Delete? y/n".
    package internal(set) var deleteConfirmation: String?
    package internal(set) var form: RestaurantForm?
    /// The Lists screens and the save-to-list picker.
    package internal(set) var lists = ListsScreen()
    /// The `/` search, while it is open.
    package internal(set) var search: SearchState?
    /// Finished thumbnails of what is on screen.
    package internal(set) var thumbnails: [ThumbnailKey: ThumbnailOutcome] = [:]
    /// The first description line shown in the detail view.
    package internal(set) var detailScroll = 0
    /// The detail view's note about its map link: opened, or the URL where nothing can open it.
    package internal(set) var linkNotice: String?
    /// Extra text for the title bar under `--debug` (cache counters); set by the app.
    package var debugStatus: String?
    package internal(set) var shouldQuit = false
    package internal(set) var exitCode: Int32 = 0

    /// Thumbnails asked for and not yet answered.
    var requestedThumbnails: Set<ThumbnailKey> = []
    /// The user's own saves and deletions, which must not raise the live banner.
    var ownChanges: Set<String> = []
    /// Restaurants a refresh brought in above the viewport that the reader has not scrolled to.
    var newAbove: Set<String> = []
    /// After a failed next page, paging waits for `r` instead of retrying on every key.
    var isPagingBlocked = false
    /// Where closing the form goes back to (the detail view, after `e` there).
    var screenBeforeForm: Screen = .list
    /// Restaurants whose record changed under a loaded row: their thumbnails are loaded again.
    var staleThumbnails: Set<String> = []

    package init(config: AppConfig = AppConfig(), width: Int = 80, height: Int = 24, now: Date = Date()) {
        self.config = config
        self.width = width
        self.height = height
        self.now = now
    }

    /// Whether something is in progress, so the spinner turns and ticks are needed.
    package var isSpinnerVisible: Bool {
        isLoadingFirstPage || isRefreshing || isLoadingMore || form?.isSaving == true
            || search?.isSearching == true || search?.isLoadingMore == true
            || lists.isLoading || lists.picker?.isSaving == true
    }

    package var isTooSmall: Bool { width < Layout.minimumWidth || height < Layout.minimumHeight }

    /// How many list rows fit on screen.
    package var visibleRowCount: Int { Layout.visibleRowCount(height: height) }

    /// The thumbnail size of the detail view at the current terminal size.
    package var detailImageSize: ThumbnailSize { Layout.detailImageSize(width: width, height: height) }

    /// The text of the live banner, e.g. "2 new restaurants — press r", or `nil` when there is nothing new.
    package var liveBannerText: String? {
        guard !liveChanges.isEmpty else { return nil }
        var created = 0, updated = 0, deleted = 0
        for kind in liveChanges.values {
            switch kind {
            case .created: created += 1
            case .updated: updated += 1
            case .deleted: deleted += 1
            }
        }
        var parts: [String] = []
        if created > 0 { parts.append("\(created) new restaurant\(created == 1 ? "" : "s")") }
        if updated > 0 { parts.append("\(updated) changed") }
        if deleted > 0 { parts.append("\(deleted) removed") }
        return parts.joined(separator: ", ") + " — press r"
    }
}
