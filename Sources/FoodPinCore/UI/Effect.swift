/// Work that `update` asks for, as data. The effect handler runs it off the UI thread and
/// posts the result back as a ``Msg``.
package enum Effect: Hashable, Sendable {
    /// Query the newest `limit` restaurants (no image key); answer with `.pageLoaded(.first, …)`.
    case loadFirstPage(limit: Int)
    /// Continue from `cursor`; answer with `.pageLoaded(.next, …)`.
    case loadNextPage(PageCursor, limit: Int)
    /// Query the first page again; answer with `.pageLoaded(.refresh, …)`.
    case refresh(limit: Int)
    /// Cancel the search in flight, wait `request.delay` (the debounce), then query the first
    /// page of restaurants matching every word of `request.text`; answer `.searchLoaded(request, .first, …)`.
    case search(SearchRequest)
    /// Continue a search from `cursor`; answer `.searchLoaded(request, .next, …)`.
    case loadNextSearchPage(PageCursor, SearchRequest)
    /// The search was closed or emptied: cancel the one in flight.
    case cancelSearch
    /// These rows are now the visible ones lacking a thumbnail: load them (answer each with
    /// `.thumbnailLoaded`) and cancel loads for rows not listed (`ThumbnailLoader.setVisible`).
    case loadThumbnails(ids: [String], size: ThumbnailSize)
    /// Check that a local file is a readable image (a cheap header read); answer `.imageProbed`.
    case probeImage(path: String)
    /// List a directory for the form's Tab completion; answer `.directoryListed`.
    case listDirectory(path: String)
    /// Render the form's live preview of a local image file; answer `.previewLoaded`.
    case loadPreview(path: String, size: ThumbnailSize)
    /// Scale the image, save the record; answer `.saveSucceeded` or `.saveFailed`.
    case save(RestaurantDraft)
    /// Save an edit over its record (a new photo scaled first); answer `.editSucceeded` or `.saveFailed`.
    case saveEdit(RestaurantEdit)
    /// These restaurants changed (perhaps their photo): drop their cached thumbnails, so the rows load them again.
    case forgetThumbnails(ids: [String])
    /// Start listening for the server going away and coming back; post `.reachabilityChanged`.
    case watchReachability
    /// Drop an edit the server refused at upload (the user kept theirs); answer `.saveFailed` only if that fails.
    case discardRefusedEdit(id: String)
    /// Delete a record; answer `.deleteSucceeded` or `.deleteFailed`.
    case delete(id: String)
    /// Start listening for other users' changes; post `.remoteChanges` as they come.
    case subscribeToChanges
    /// Read both sections of the Lists screen; answer `.listsLoaded`.
    case loadLists
    /// Read a list's entries; answer `.listEntriesLoaded`.
    case loadListEntries(RestaurantListRef)
    /// Save a restaurant to the named list (made when new); answer `.savedToList`.
    case saveToList(restaurantID: String, list: String)
    /// Remove an entry; answer `.listEntryRemoved`.
    case removeListEntry(RestaurantListRef, id: String)
    /// Start listening for other participants' changes to lists; post `.listsChanged`.
    case subscribeToListChanges
    /// The app is exiting: cancel background work.
    /// `o` in the detail view: open the map link outside the terminal.
    case openLink(Hyperlink)
    case quit
}
