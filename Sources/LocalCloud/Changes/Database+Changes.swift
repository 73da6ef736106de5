import Foundation

// Change tokens through the async convenience API: one page per call, `moreComing` says whether to call again.
extension Database {
    /// What `databaseChanges(since:)` reports, like `CKDatabase.DatabaseChange`.
    public enum DatabaseChange {
        /// A zone with changed records.
        public struct Modification: Sendable, Hashable {
            public var zoneID: RecordZone.ID
        }

        /// A zone that was deleted.
        public struct Deletion: Sendable, Hashable {
            public var zoneID: RecordZone.ID
            /// Always `false`: LocalCloud has no purge.
            public var purged: Bool
        }
    }

    /// What `recordZoneChanges(inZoneWith:since:)` reports, like `CKDatabase.RecordZoneChange`.
    public enum RecordZoneChange {
        /// A record created or changed since the token, as it is now.
        public struct Modification: Sendable {
            public var record: Record
        }

        /// A record deleted since the token.
        public struct Deletion: Sendable, Hashable {
            public var recordID: Record.ID
            public var recordType: String
        }
    }

    /// The default page size of change fetches.
    public static let defaultChangesLimit = 400

    /// The zones that changed or were deleted since `changeToken` (all zones when it is `nil`).
    ///
    /// ```swift
    /// var token: ServerChangeToken? = nil
    /// repeat {
    ///     let page = try await db.databaseChanges(since: token)
    ///     for change in page.modifications { … fetch that zone's changes … }
    ///     token = page.changeToken
    /// } while page.moreComing
    /// ```
    /// Unlike CloudKit, this works in every database, the public one included.
    /// - Throws: `changeTokenExpired` when the log was compacted past the token.
    public func databaseChanges(since changeToken: ServerChangeToken?, resultsLimit: Int? = nil) async throws
        -> (modifications: [DatabaseChange.Modification], deletions: [DatabaseChange.Deletion], changeToken: ServerChangeToken, moreComing: Bool) {
        let page = try await perform { db in
            try await db.changeLogStore().databaseChanges(since: changeToken, limit: resultsLimit ?? Self.defaultChangesLimit, context: db.context)
        }
        return (page.changedZones.map { DatabaseChange.Modification(zoneID: $0) },
                page.deletedZones.map { DatabaseChange.Deletion(zoneID: $0, purged: false) },
                page.token, page.moreComing)
    }

    /// The records of a zone changed or deleted since `changeToken`, collapsed to one entry per record.
    ///
    /// With no token it returns the zone's current records (in pages), then changes from the
    /// moment that first fetch began. Works in every database, the public one included, so
    /// FoodPin can ask `recordZoneChanges(inZoneWith: .default, since: token)` of the public database.
    /// - Throws: `changeTokenExpired` when the log was compacted past the token; `zoneNotFound`.
    public func recordZoneChanges(
        inZoneWith zoneID: RecordZone.ID,
        since changeToken: ServerChangeToken?,
        desiredKeys: [String]? = nil,
        resultsLimit: Int? = nil
    ) async throws -> (modificationResultsByID: [Record.ID: Result<RecordZoneChange.Modification, any Error>],
                       deletions: [RecordZoneChange.Deletion], changeToken: ServerChangeToken, moreComing: Bool) {
        let page = try await perform { db in
            try await db.changeLogStore().recordZoneChanges(in: zoneID, since: changeToken, desiredKeys: desiredKeys,
                                                      limit: resultsLimit ?? Self.defaultChangesLimit, context: db.context)
        }
        var modifications: [Record.ID: Result<RecordZoneChange.Modification, any Error>] = [:]
        for (id, result) in page.modified {
            modifications[id] = result.map { RecordZoneChange.Modification(record: $0) }.mapError { $0 as any Error }
        }
        return (modifications, page.deleted.map { RecordZoneChange.Deletion(recordID: $0.0, recordType: $0.1) }, page.token, page.moreComing)
    }

    func changeLogStore() async throws -> any ChangeLogStore { try await store() }
}

extension Container {
    /// Drops change-log entries older than `date`; tokens from before them then fail with `changeTokenExpired`.
    /// - Returns: how many entries were removed.
    @discardableResult
    public func compactChangeLog(olderThan date: Date) async throws -> Int {
        try await publicCloudDatabase.perform { db in try await db.changeLogStore().compactChangeLog(throughSequence: nil, olderThan: date) }
    }

    /// Drops every change-log entry up to `token`: that token still works, older ones expire.
    @discardableResult
    public func compactChangeLog(keepingAfter token: ServerChangeToken) async throws -> Int {
        try await publicCloudDatabase.perform { db in
            try await db.changeLogStore().compactChangeLog(throughSequence: token.sequence, olderThan: nil)
        }
    }

    /// A token for "now" in this container: changes after it are the ones not yet seen.
    public func currentChangeToken() async throws -> ServerChangeToken {
        try await publicCloudDatabase.perform { db in try await db.changeLogStore().currentChangeToken() }
    }
}
