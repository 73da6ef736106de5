// Stand-in until the predicate parser branch merges; that branch replaces this file.
public final class Query {
    public let recordType: String
    public let predicate: Predicate
    public var sortDescriptors: [SortDescriptor]?

    public init(recordType: String, predicate: Predicate) {
        self.recordType = recordType
        self.predicate = predicate
    }
}
