/// Everything that can happen to the Discover app: input, time, and results of effects.
package enum Msg: Sendable {
    /// Sent once, before anything else: starts the first load.
    case start
    case key(Key)
    case resize(width: Int, height: Int)
    /// A spinner frame.
    case tick
    /// A page query finished.
    case pageLoaded(PageRequest, Result<DiscoverPage, DiscoverError>)
    case thumbnailLoaded(ThumbnailKey, ThumbnailOutcome)
    /// An image probe answered: `problem` says why `path` is not a readable image, `nil` if it is one.
    case imageProbed(path: String, problem: String?)
    /// A directory was listed for Tab completion (`nil`: it could not be read).
    case directoryListed(path: String, entries: [FormServices.DirectoryEntry]?)
    /// The form's image preview was rendered.
    case previewLoaded(path: String, ThumbnailOutcome)
    case saveSucceeded(Restaurant)
    /// An edit was saved (or queued, offline): the restaurant as it is now.
    case editSucceeded(Restaurant)
    case saveFailed(DiscoverError)
    case deleteSucceeded(id: String)
    case deleteFailed(id: String, DiscoverError)
    /// A search page finished; dropped unless it answers the current search.
    case searchLoaded(SearchRequest, SearchPage, Result<DiscoverPage, DiscoverError>)
    /// Someone else changed restaurants (a subscription notification).
    case remoteChanges([RemoteChange])
    /// Whether the server answers: `false` when it went away (the push stream dropped and a probe
    /// failed), `true` when it is back. Sent by a remote container only.
    case reachabilityChanged(Bool)
    /// A link was handed to a program (`opened`), or there is none to open it.
    case linkOpened(Hyperlink, opened: Bool)

    /// Both sections of the Lists screen were read.
    case listsLoaded(Result<RestaurantListsOverview, DiscoverError>)
    /// A list's entries were read.
    case listEntriesLoaded(RestaurantListRef, Result<[Restaurant], DiscoverError>)
    /// `s`'s save finished: `alreadyThere` when the restaurant was on the list before.
    case savedToList(name: String, Result<Bool, DiscoverError>)
    /// An entry's removal finished (`nil`: removed).
    case listEntryRemoved(RestaurantListRef, id: String, DiscoverError?)
    /// Other participants changed lists (how many records).
    case listsChanged(Int)

    /// Which query a page answers.
    package enum PageRequest: Hashable, Sendable {
        /// `cached`: the first page from a local cache, drawn before the server's (`first`) arrives.
        case first, next, refresh, cached
    }

    /// Which page of a search a result is.
    package enum SearchPage: Hashable, Sendable {
        case first, next
    }
}
