// Stand-in until the predicate parser branch merges; that branch replaces this file.
public final class LocationSortDescriptor: SortDescriptor {
    public let relativeLocation: Location

    public init(key: String, relativeLocation: Location) {
        self.relativeLocation = relativeLocation
        super.init(key: key, ascending: true)
    }
}
