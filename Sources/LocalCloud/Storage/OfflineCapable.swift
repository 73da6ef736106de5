import Foundation

/// What a store with an offline cache and an outbox offers beyond ``CloudStore``: the remote
/// store has it; the embedded and PostgreSQL stores, which answer at once, have none
/// (``CloudStore/offline`` is `nil`). The container's sync state is read through it, never by
/// casting the store to a concrete type.
package protocol OfflineCapable: AnyObject, Sendable {
    /// Changes made while the server could not be reached that have not reached it yet, oldest first.
    func pendingChanges() throws -> [PendingChange]
    /// Drops the changes of `recordID` that the server refused, once the user resolved them.
    func discardRefusedChanges(of recordID: Record.ID) throws -> Int
    /// Whether the last request reached the server.
    var isReachable: Bool { get }
    /// The server's change token the local cache is current to.
    func cacheChangeToken() throws -> String?
    /// A query's first page as last read from the server, from the cache.
    func cachedQueryRecords(_ request: QueryRequest, context: StoreContext) throws -> QueryPage?
    /// The server's clock minus this machine's, from its last answer.
    var serverClockOffset: TimeInterval? { get }
    /// Whether the server answers now, then each change.
    func reachabilityChanges() -> AsyncStream<Bool>
    /// Returns once nothing waits to upload, or after `timeout`.
    func waitForUploads(upTo timeout: Duration) async
}
