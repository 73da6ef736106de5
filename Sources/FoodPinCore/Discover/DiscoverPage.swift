/// One page of restaurants, newest first, with the cursor for the next page if there is one.
package struct DiscoverPage: Sendable {
    package var restaurants: [Restaurant]
    package var cursor: PageCursor?

    package init(restaurants: [Restaurant], cursor: PageCursor?) {
        self.restaurants = restaurants
        self.cursor = cursor
    }
}
