import Foundation
import Synchronization

/// Fetches what changed in zones since their tokens, like `CKFetchRecordZoneChangesOperation`.
///
/// ```swift
/// let op = FetchRecordZoneChangesOperation(recordZoneIDs: [.default],
///     configurationsByRecordZoneID: [.default: .init(previousServerChangeToken: token)])
/// op.recordWasChangedBlock = { id, result in … }
/// op.recordWithIDWasDeletedBlock = { id, recordType in … }
/// op.recordZoneFetchResultBlock = { zoneID, result in token = try? result.get().serverChangeToken }
/// database.add(op)
/// ```
public final class FetchRecordZoneChangesOperation: DatabaseOperation, @unchecked Sendable {
    /// Per-zone settings, like `CKFetchRecordZoneChangesOperation.ZoneConfiguration`.
    public struct ZoneConfiguration: Sendable {
        public var previousServerChangeToken: ServerChangeToken?
        public var resultsLimit: Int?
        public var desiredKeys: [String]?

        public init(previousServerChangeToken: ServerChangeToken? = nil, resultsLimit: Int? = nil, desiredKeys: [String]? = nil) {
            self.previousServerChangeToken = previousServerChangeToken
            self.resultsLimit = resultsLimit
            self.desiredKeys = desiredKeys
        }
    }

    public typealias ZoneResult = (serverChangeToken: ServerChangeToken, clientChangeTokenData: Data?, moreComing: Bool)

    private struct Settings {
        var recordZoneIDs: [RecordZone.ID]
        var configurationsByRecordZoneID: [RecordZone.ID: ZoneConfiguration]
        var fetchAllChanges = true
        var recordWasChangedBlock: (@Sendable (Record.ID, Result<Record, any Error>) -> Void)?
        var recordWithIDWasDeletedBlock: (@Sendable (Record.ID, String) -> Void)?
        var recordZoneChangeTokensUpdatedBlock: (@Sendable (RecordZone.ID, ServerChangeToken?, Data?) -> Void)?
        var recordZoneFetchResultBlock: (@Sendable (RecordZone.ID, Result<ZoneResult, any Error>) -> Void)?
        var fetchRecordZoneChangesResultBlock: (@Sendable (Result<Void, any Error>) -> Void)?
    }

    private let settings: Mutex<Settings>

    public init(recordZoneIDs: [RecordZone.ID], configurationsByRecordZoneID: [RecordZone.ID: ZoneConfiguration]? = nil) {
        settings = Mutex(Settings(recordZoneIDs: recordZoneIDs, configurationsByRecordZoneID: configurationsByRecordZoneID ?? [:]))
        super.init()
    }

    public var recordZoneIDs: [RecordZone.ID] {
        get { settings.withLock { $0.recordZoneIDs } }
        set { settings.withLock { $0.recordZoneIDs = newValue } }
    }

    public var configurationsByRecordZoneID: [RecordZone.ID: ZoneConfiguration] {
        get { settings.withLock { $0.configurationsByRecordZoneID } }
        set { settings.withLock { $0.configurationsByRecordZoneID = newValue } }
    }

    /// When `true` (the default) the operation keeps fetching pages until nothing more is coming.
    public var fetchAllChanges: Bool {
        get { settings.withLock { $0.fetchAllChanges } }
        set { settings.withLock { $0.fetchAllChanges = newValue } }
    }

    public var recordWasChangedBlock: (@Sendable (Record.ID, Result<Record, any Error>) -> Void)? {
        get { settings.withLock { $0.recordWasChangedBlock } }
        set { settings.withLock { $0.recordWasChangedBlock = newValue } }
    }

    /// The deleted record's ID and type.
    public var recordWithIDWasDeletedBlock: (@Sendable (Record.ID, String) -> Void)? {
        get { settings.withLock { $0.recordWithIDWasDeletedBlock } }
        set { settings.withLock { $0.recordWithIDWasDeletedBlock = newValue } }
    }

    /// Called between pages of one zone with the token so far.
    public var recordZoneChangeTokensUpdatedBlock: (@Sendable (RecordZone.ID, ServerChangeToken?, Data?) -> Void)? {
        get { settings.withLock { $0.recordZoneChangeTokensUpdatedBlock } }
        set { settings.withLock { $0.recordZoneChangeTokensUpdatedBlock = newValue } }
    }

    /// Called once per zone with its final token, or its error (e.g. `changeTokenExpired`).
    public var recordZoneFetchResultBlock: (@Sendable (RecordZone.ID, Result<ZoneResult, any Error>) -> Void)? {
        get { settings.withLock { $0.recordZoneFetchResultBlock } }
        set { settings.withLock { $0.recordZoneFetchResultBlock = newValue } }
    }

    /// Called once at the end: success, `partialFailure` when some zones failed, or the error.
    public var fetchRecordZoneChangesResultBlock: (@Sendable (Result<Void, any Error>) -> Void)? {
        get { settings.withLock { $0.fetchRecordZoneChangesResultBlock } }
        set { settings.withLock { $0.fetchRecordZoneChangesResultBlock = newValue } }
    }

    override func execute(in database: Database) async throws {
        let settings = settings.withLock { $0 }
        let store = try await database.changeLogStore()
        var failures: [(RecordZone.ID, CloudError)] = []
        for zoneID in settings.recordZoneIDs {
            let configuration = settings.configurationsByRecordZoneID[zoneID] ?? ZoneConfiguration()
            var token = configuration.previousServerChangeToken
            do {
                while true {
                    if isCancelled { throw Self.cancelledError }
                    let page = try await store.recordZoneChanges(in: zoneID, since: token, desiredKeys: configuration.desiredKeys,
                                                           limit: configuration.resultsLimit ?? Database.defaultChangesLimit,
                                                           context: database.context)
                    for (id, result) in page.modified { settings.recordWasChangedBlock?(id, result.mapError { $0 as any Error }) }
                    for (id, type) in page.deleted { settings.recordWithIDWasDeletedBlock?(id, type) }
                    token = page.token
                    if page.moreComing && settings.fetchAllChanges {
                        settings.recordZoneChangeTokensUpdatedBlock?(zoneID, page.token, nil)
                        continue
                    }
                    settings.recordZoneFetchResultBlock?(zoneID, .success((page.token, nil, page.moreComing)))
                    break
                }
            } catch let error as CloudError {
                if error.code == .operationCancelled { throw error }
                failures.append((zoneID, error))
                settings.recordZoneFetchResultBlock?(zoneID, .failure(error))
            }
        }
        if let error = CloudError.partialFailure(failures, what: "zones") {
            settings.fetchRecordZoneChangesResultBlock?(.failure(error))
        } else {
            settings.fetchRecordZoneChangesResultBlock?(.success(()))
        }
    }

    override func finish(with error: CloudError) {
        fetchRecordZoneChangesResultBlock?(.failure(error))
    }
}
