import Foundation
import Synchronization

/// Fetches which zones changed since a token, like `CKFetchDatabaseChangesOperation`.
///
/// ```swift
/// let op = FetchDatabaseChangesOperation(previousServerChangeToken: token)
/// op.recordZoneWithIDChangedBlock = { zoneID in changed.append(zoneID) }
/// op.fetchDatabaseChangesResultBlock = { result in token = try? result.get().serverChangeToken }
/// database.add(op)
/// ```
public final class FetchDatabaseChangesOperation: DatabaseOperation, @unchecked Sendable {
    private struct Settings {
        var previousServerChangeToken: ServerChangeToken?
        var resultsLimit: Int?
        var fetchAllChanges = true
        var recordZoneWithIDChangedBlock: (@Sendable (RecordZone.ID) -> Void)?
        var recordZoneWithIDWasDeletedBlock: (@Sendable (RecordZone.ID) -> Void)?
        var changeTokenUpdatedBlock: (@Sendable (ServerChangeToken) -> Void)?
        var fetchDatabaseChangesResultBlock: (@Sendable (Result<(serverChangeToken: ServerChangeToken, moreComing: Bool), any Error>) -> Void)?
    }

    private let settings: Mutex<Settings>

    public init(previousServerChangeToken: ServerChangeToken? = nil) {
        settings = Mutex(Settings(previousServerChangeToken: previousServerChangeToken))
        super.init()
    }

    public var previousServerChangeToken: ServerChangeToken? {
        get { settings.withLock { $0.previousServerChangeToken } }
        set { settings.withLock { $0.previousServerChangeToken = newValue } }
    }

    /// Zones per page.
    public var resultsLimit: Int? {
        get { settings.withLock { $0.resultsLimit } }
        set { settings.withLock { $0.resultsLimit = newValue } }
    }

    /// When `true` (the default) the operation keeps fetching pages until nothing more is coming.
    public var fetchAllChanges: Bool {
        get { settings.withLock { $0.fetchAllChanges } }
        set { settings.withLock { $0.fetchAllChanges = newValue } }
    }

    public var recordZoneWithIDChangedBlock: (@Sendable (RecordZone.ID) -> Void)? {
        get { settings.withLock { $0.recordZoneWithIDChangedBlock } }
        set { settings.withLock { $0.recordZoneWithIDChangedBlock = newValue } }
    }

    public var recordZoneWithIDWasDeletedBlock: (@Sendable (RecordZone.ID) -> Void)? {
        get { settings.withLock { $0.recordZoneWithIDWasDeletedBlock } }
        set { settings.withLock { $0.recordZoneWithIDWasDeletedBlock = newValue } }
    }

    /// Called between pages with the token so far.
    public var changeTokenUpdatedBlock: (@Sendable (ServerChangeToken) -> Void)? {
        get { settings.withLock { $0.changeTokenUpdatedBlock } }
        set { settings.withLock { $0.changeTokenUpdatedBlock = newValue } }
    }

    public var fetchDatabaseChangesResultBlock: (@Sendable (Result<(serverChangeToken: ServerChangeToken, moreComing: Bool), any Error>) -> Void)? {
        get { settings.withLock { $0.fetchDatabaseChangesResultBlock } }
        set { settings.withLock { $0.fetchDatabaseChangesResultBlock = newValue } }
    }

    override func execute(in database: Database) async throws {
        let settings = settings.withLock { $0 }
        let store = try await database.changeLogStore()
        var token = settings.previousServerChangeToken
        while true {
            if isCancelled { throw Self.cancelledError }
            let page = try await store.databaseChanges(since: token, limit: settings.resultsLimit ?? Database.defaultChangesLimit, context: database.context)
            page.changedZones.forEach { settings.recordZoneWithIDChangedBlock?($0) }
            page.deletedZones.forEach { settings.recordZoneWithIDWasDeletedBlock?($0) }
            token = page.token
            if page.moreComing && settings.fetchAllChanges {
                settings.changeTokenUpdatedBlock?(page.token)
                continue
            }
            settings.fetchDatabaseChangesResultBlock?(.success((page.token, page.moreComing)))
            return
        }
    }

    override func finish(with error: CloudError) {
        fetchDatabaseChangesResultBlock?(.failure(error))
    }
}
