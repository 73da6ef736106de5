import Foundation
import Synchronization

/// Runs a query and returns one page of matching records, like `CKQueryOperation`.
///
/// ```swift
/// let op = QueryOperation(query: Query(recordType: "Restaurant", predicate: Predicate(value: true)))
/// op.desiredKeys = ["name", "type"]
/// op.resultsLimit = 50
/// op.recordMatchedBlock = { id, result in … }
/// op.queryResultBlock = { result in /* .success(cursor) for the next page */ }
/// database.add(op)
/// ```
public final class QueryOperation: DatabaseOperation, @unchecked Sendable {
    /// Let the store choose the page size (100 records).
    public static let maximumResults = 0
    /// The page size used for ``maximumResults``.
    static let defaultPageSize = 100
    /// The largest `resultsLimit` a query may ask for; more fails with `limitExceeded`.
    ///
    /// ```swift
    /// let (matches, cursor) = try await db.records(matching: query, resultsLimit: QueryOperation.maximumResultsLimit)
    /// ```
    public static let maximumResultsLimit = 400
    static var largestPageSize: Int { maximumResultsLimit }

    private struct Settings {
        /// Boxed: `Query` is a mutable class like `CKQuery` and need not be `Sendable`; the
        /// operation reads it once, on its queue, after the caller has handed it over.
        var query: QueryBox?
        var cursor: Query.Cursor?
        var desiredKeys: [String]?
        var resultsLimit = QueryOperation.maximumResults
        var zoneID: RecordZone.ID?
        var recordMatchedBlock: (@Sendable (Record.ID, Result<Record, any Error>) -> Void)?
        var queryResultBlock: (@Sendable (Result<Query.Cursor?, any Error>) -> Void)?
    }

    private let settings: Mutex<Settings>

    public init(query: Query) {
        settings = Mutex(Settings(query: QueryBox(query)))
        super.init()
    }

    public init(cursor: Query.Cursor) {
        settings = Mutex(Settings(cursor: cursor))
        super.init()
    }

    public var query: Query? {
        get { settings.withLock { $0.query }?.query }
        set {
            let box = newValue.map(QueryBox.init)
            settings.withLock { $0.query = box }
        }
    }

    public var cursor: Query.Cursor? {
        get { settings.withLock { $0.cursor } }
        set { settings.withLock { $0.cursor = newValue } }
    }

    /// Only these fields are read and returned; `nil` means all, `[]` none.
    public var desiredKeys: [String]? {
        get { settings.withLock { $0.desiredKeys } }
        set { settings.withLock { $0.desiredKeys = newValue } }
    }

    /// Records per page; ``maximumResults`` lets the store choose.
    public var resultsLimit: Int {
        get { settings.withLock { $0.resultsLimit } }
        set { settings.withLock { $0.resultsLimit = newValue } }
    }

    /// The zone to search; the default zone when `nil`.
    public var zoneID: RecordZone.ID? {
        get { settings.withLock { $0.zoneID } }
        set { settings.withLock { $0.zoneID = newValue } }
    }

    public var recordMatchedBlock: (@Sendable (Record.ID, Result<Record, any Error>) -> Void)? {
        get { settings.withLock { $0.recordMatchedBlock } }
        set { settings.withLock { $0.recordMatchedBlock = newValue } }
    }

    /// Called once at the end with the cursor for the next page (`nil` when there is none), or the error.
    public var queryResultBlock: (@Sendable (Result<Query.Cursor?, any Error>) -> Void)? {
        get { settings.withLock { $0.queryResultBlock } }
        set { settings.withLock { $0.queryResultBlock = newValue } }
    }

    override func execute(in database: Database) async throws {
        let settings = settings.withLock { $0 }
        let limit = try Self.pageSize(settings.resultsLimit)
        let request: QueryRequest
        if let cursor = settings.cursor {
            request = QueryRequest(cursor: cursor, limit: limit, desiredKeys: settings.desiredKeys)
        } else if let query = settings.query?.query {
            request = try QueryRequest(query: query, zoneID: settings.zoneID ?? .default, limit: limit, desiredKeys: settings.desiredKeys)
        } else {
            throw CloudError(.invalidArguments, "QueryOperation needs a query or a cursor")
        }
        let page = try await database.store().queryRecords(request, context: database.context)
        for record in page.records {
            if isCancelled { throw Self.cancelledError }
            settings.recordMatchedBlock?(record.recordID, .success(record))
        }
        settings.queryResultBlock?(.success(page.cursor))
    }

    override func finish(with error: CloudError) {
        queryResultBlock?(.failure(error))
    }

    static func pageSize(_ resultsLimit: Int) throws -> Int {
        if resultsLimit == maximumResults { return defaultPageSize }
        guard resultsLimit > 0 else {
            throw CloudError(.invalidArguments, "resultsLimit must be positive, or QueryOperation.maximumResults")
        }
        guard resultsLimit <= largestPageSize else {
            throw CloudError(.limitExceeded, "resultsLimit \(resultsLimit) exceeds the limit of \(largestPageSize) records per page")
        }
        return resultsLimit
    }
}

/// Carries a `Query` into the operation's lock.
final class QueryBox: Sendable {
    let query: Query
    init(_ query: Query) { self.query = query }
}
