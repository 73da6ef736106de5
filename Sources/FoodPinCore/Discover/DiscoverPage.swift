/// One page of restaurants, newest first, with the cursor for the next page if there is one.
public struct DiscoverPage: Sendable {
    public var restaurants: [Restaurant]
    public var cursor: PageCursor?

    public init(restaurants: [Restaurant], cursor: PageCursor?) {
        self.restaurants = restaurants
        self.cursor = cursor
    }
}
