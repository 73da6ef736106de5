import Foundation

/// Orders query results by one key, like the `NSSortDescriptor`s of a `CKQuery`.
///
/// ```swift
/// query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
/// ```
open class SortDescriptor: @unchecked Sendable {
    /// The field or system key (`creationDate`, `modificationDate`, `recordName`) to sort by.
    public let key: String
    /// `true` for smallest first.
    public let ascending: Bool

    public init(key: String, ascending: Bool) {
        self.key = key
        self.ascending = ascending
    }
}
