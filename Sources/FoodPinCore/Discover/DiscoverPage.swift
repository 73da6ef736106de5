/// One page of restaurants, newest first, with the cursor for the next page if there is one.
package struct DiscoverPage: Sendable {
    package var restaurants: [Restaurant]
    package var cursor: PageCursor?
    /// Read from the local cache because the server could not be reached.
    package var isFromCache = false
    /// A refresh's catch-up: restaurants deleted since the last page was read, on any page.
    package var deletedIDs: Set<String> = []
    /// A refresh's catch-up: restaurants changed since the last page was read, as they are now.
    package var updated: [Restaurant] = []

    package init(restaurants: [Restaurant], cursor: PageCursor?) {
        self.restaurants = restaurants
        self.cursor = cursor
    }
}
