// Stand-in until the predicate parser branch merges; that branch replaces this file.
public class SortDescriptor {
    public let key: String
    public let ascending: Bool

    public init(key: String, ascending: Bool) {
        self.key = key
        self.ascending = ascending
    }
}
