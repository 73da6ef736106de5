import Foundation

/// Everything the Discover app shows, as a value: `update` changes it, `view` draws it.
public struct AppState: Sendable {
    public enum Screen: Hashable, Sendable {
        case list
        case detail(id: String)
        case form
    }

    /// A one-line error with the effect that `r` retries, if any.
    public struct ErrorBanner: Hashable, Sendable {
        public var message: String
        public var retry: Effect?
    }

    public var config: AppConfig
    public internal(set) var screen: Screen = .list
    public internal(set) var isHelpVisible = false
    public internal(set) var width: Int
    public internal(set) var height: Int
    /// The time "added 5 min ago" is measured from; the app sets it before each frame.
    public var now: Date
    public internal(set) var list = DiscoverList()
    /// The first list row on screen.
    public internal(set) var scrollOffset = 0
    public internal(set) var isLoadingFirstPage = false
    public internal(set) var isRefreshing = false
    public internal(set) var isLoadingMore = false
    public internal(set) var spinnerPhase = 0
    public internal(set) var errorBanner: ErrorBanner?
    /// Other users' changes since the last refresh, by record ID (the live banner).
    public internal(set) var liveChanges: [String: RemoteChange.Kind] = [:]
    /// The restaurant awaiting "Delete? y/n".
    public internal(set) var deleteConfirmation: String?
    public internal(set) var form: RestaurantForm?
    /// The `/` search, while it is open.
    public internal(set) var search: SearchState?
    /// Finished thumbnails of what is on screen.
    public internal(set) var thumbnails: [ThumbnailKey: ThumbnailOutcome] = [:]
    /// The first description line shown in the detail view.
    public internal(set) var detailScroll = 0
    /// Extra text for the title bar under `--debug` (cache counters); set by the app.
    public var debugStatus: String?
    public internal(set) var shouldQuit = false
    public internal(set) var exitCode: Int32 = 0

    /// Thumbnails asked for and not yet answered.
    var requestedThumbnails: Set<ThumbnailKey> = []
    /// The user's own saves and deletions, which must not raise the live banner.
    var ownChanges: Set<String> = []
    /// Restaurants a refresh brought in above the viewport that the reader has not scrolled to.
    var newAbove: Set<String> = []
    /// After a failed next page, paging waits for `r` instead of retrying on every key.
    var isPagingBlocked = false

    public init(config: AppConfig = AppConfig(), width: Int = 80, height: Int = 24, now: Date = Date()) {
        self.config = config
        self.width = width
        self.height = height
        self.now = now
    }

    /// Whether something is in progress, so the spinner turns and ticks are needed.
    public var isSpinnerVisible: Bool {
        isLoadingFirstPage || isRefreshing || isLoadingMore || form?.isSaving == true
            || search?.isSearching == true || search?.isLoadingMore == true
    }

    public var isTooSmall: Bool { width < Layout.minimumWidth || height < Layout.minimumHeight }

    /// How many list rows fit on screen.
    public var visibleRowCount: Int { Layout.visibleRowCount(height: height) }

    /// The thumbnail size of the detail view at the current terminal size.
    public var detailImageSize: ThumbnailSize { Layout.detailImageSize(width: width, height: height) }

    /// The text of the live banner, e.g. "2 new restaurants — press r", or `nil` when there is nothing new.
    public var liveBannerText: String? {
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
