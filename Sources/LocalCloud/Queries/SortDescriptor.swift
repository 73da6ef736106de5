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

    /// The key as the query compiler sees it: `creationDate`, `modificationDate` and
    /// `recordID`/`recordName` map to the system keys.
    ///
    /// - Throws: `CloudError(.invalidArguments)` for a key path or a malformed name.
    func validatedKey() throws -> PredicateKey {
        do {
            return try PredicateRules.key(named: key)
        } catch let error as CloudError {
            throw PredicateRules.error("\(error.message) in sort descriptor")
        }
    }
}
