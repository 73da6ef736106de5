import Foundation
import Synchronization

/// A search for records of one type, like `CKQuery`: a record type, a predicate and an optional sort order.
///
/// ```swift
/// let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
/// query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
/// ```
public final class Query: @unchecked Sendable {
    /// The type of records to search.
    public let recordType: String
    /// Which records match.
    public let predicate: Predicate
    private let sortState = Mutex<[SortDescriptor]?>(nil)

    public init(recordType: String, predicate: Predicate) {
        self.recordType = recordType
        self.predicate = predicate
    }

    /// The order of the results, most significant first; `nil` leaves the order unspecified.
    public var sortDescriptors: [SortDescriptor]? {
        get { sortState.withLock { $0 } }
        set { sortState.withLock { $0 = newValue } }
    }
}
