/// One page of restaurants, newest first, with the cursor for the next page if there is one.
package struct DiscoverPage: Sendable {
    package var restaurants: [Restaurant]
    package var cursor: PageCursor?
    /// Read from the local cache because the server could not be reached.
    package var isFromCache = false

    package init(restaurants: [Restaurant], cursor: PageCursor?) {
        self.restaurants = restaurants
        self.cursor = cursor
    }
}
