import Foundation
import Synchronization

/// The sharing layer over any local store (embedded SQLite or PostgreSQL): the one place where
/// CloudKit's sharing rules (``ShareRules``) meet the store calls.
///
/// - In the **private** database it turns ``Share`` records into what a store keeps (and back),
///   gives a new share its short GUID and owner, refuses a second share of one record
///   (`alreadyShared`) and sets the root's ``Record/share``.
/// - In the **shared** database it maps each zone (named with its owner) onto the owner's
///   private zone, after the rules allowed the call: reads need a share that covers the record,
///   writes need `readWrite`. Everything else goes straight to the store.
///
/// The remote store has no such layer: its server applies these rules.
final class SharingStore: CloudStore {
    let base: any CloudStore
    let catalog: any ShareCatalog
    let cache: ShareCatalogCache
    let urlBase: String

    init(base: any CloudStore, catalog: any ShareCatalog, cache: ShareCatalogCache, urlBase: String?) {
        self.base = base
        self.catalog = catalog
        self.cache = cache
        self.urlBase = urlBase ?? "localcloud://share/"
    }

    // MARK: The catalog

    /// Every share, read again only when the store changed since the last read.
    func shares() async throws -> [StoredShare] {
        let stamp = try base.changeStamp()
        if let cached = cache.value.withLock({ $0 }), cached.stamp == stamp { return cached.shares }
        let loaded = try await catalog.storedShares()
        cache.value.withLock { $0 = (stamp, loaded) }
        return loaded
    }

    /// The share with this short GUID.
    func share(shortGUID: String) async throws -> StoredShare? {
        try await shares().first { $0.share.shortGUID == shortGUID }
    }

    /// A share as `viewer` reads it: with its URL, and knowing who asks.
    func presented(_ share: Share, viewer: String?) -> Share {
        // A copy: catalog shares are cached and read by every user.
        let copy = Share(recordID: share.recordID, state: share.snapshot)
        copy.setViewer(viewer.map { "_" + $0 }, urlBase: urlBase)
        return copy
    }

    /// A store's record as the API shows it: stored shares become ``Share``s.
    func presented(_ record: Record, viewer: String?) -> Record {
        Share.fromStored(record).map { presented($0, viewer: viewer) } ?? record
    }

    // MARK: Shared-database zones

    /// The owner's context for a shared-database call on `zoneID`, and what the user may do there.
    /// - Throws: `zoneNotFound` when the user is in no share of the zone (or it is their own).
    func sharedAccess(_ zoneID: RecordZone.ID, context: StoreContext) async throws -> (context: StoreContext, grant: ShareRules.Grant) {
        guard let user = context.user else {
            throw CloudError(.notAuthenticated, "No account: the shared database needs a signed-in user")
        }
        let owner = zoneID.ownerName
        let grant = owner == RecordZone.ID.currentUserName || owner.isEmpty ? ShareRules.Grant()
            : ShareRules.grant(user: user, owner: SharingStore.userName(owner), zoneName: zoneID.zoneName, shares: try await shares())
        guard !grant.isEmpty else {
            throw CloudError(.zoneNotFound, "Zone not found in the shared database: \(zoneID.zoneName)")
        }
        var ownerContext = context
        ownerContext.scope = .private
        ownerContext.sharedOwner = SharingStore.userName(owner)
        return (ownerContext, grant)
    }

    /// Zone owner names may be written as user record names (`_alice`) or account names (`alice`).
    static func userName(_ ownerName: String) -> String {
        ownerName.hasPrefix("_") ? String(ownerName.dropFirst()) : ownerName
    }

    /// The parent chain of a record (nearest first), read as the owner; stops at 32 levels or a loop.
    /// Stops at the first of `roots` (nothing above it can matter), so a list's entries need no read.
    func ancestors(of record: Record, context: StoreContext, roots: [String: Share.ParticipantPermission] = [:],
                   known: inout [String: String?]) async throws -> [String] {
        try await ancestors(recordName: record.recordID.recordName, parent: record.parent?.recordID.recordName,
                            zoneID: record.recordID.zoneID, context: context, roots: roots, known: &known)
    }

    /// The parent chain above `parent`, the parent of `recordName` (which may no longer exist: a
    /// deletion's parent comes from its log row). `known` holds parents already read (or logged).
    func ancestors(recordName: String, parent: String?, zoneID: RecordZone.ID, context: StoreContext,
                   roots: [String: Share.ParticipantPermission], known: inout [String: String?]) async throws -> [String] {
        var chain: [String] = []
        var next = parent
        while let name = next, chain.count < 32, !chain.contains(name), name != recordName {
            chain.append(name)
            if roots[name] != nil { break }
            if let cached = known[name] {
                next = cached
                continue
            }
            let id = Record.ID(recordName: name, zoneID: zoneID)
            let fetched = try await base.fetchRecords([id], desiredKeys: [Record.parentKey], context: context)[id]
            let parent = (try? fetched?.get())?.parent?.recordID.recordName
            known[name] = .some(parent)
            next = parent
        }
        return chain
    }

    /// The permission the grant gives on `record`.
    func permission(on record: Record, grant: ShareRules.Grant, context: StoreContext, known: inout [String: String?]) async throws
        -> Share.ParticipantPermission {
        if let permission = Self.immediatePermission(on: record, grant: grant) { return permission }
        let chain = try await ancestors(of: record, context: context, roots: grant.roots, known: &known)
        return grant.permission(recordName: record.recordID.recordName, ancestors: chain)
    }

    /// The permission the grant gives on `record` when no parent needs reading: a share, a
    /// zone-wide grant, a root, or a root's direct child (a list's entries; most of a page).
    /// `nil` when the parent chain must be read.
    static func immediatePermission(on record: Record, grant: ShareRules.Grant) -> Share.ParticipantPermission? {
        if record.recordType == Share.storedRecordType, let share = Share.fromStored(record) {
            // A participant reads the share they are in (CloudKit's participants fetch the CKShare,
            // e.g. for `currentUserParticipant`); only its owner changes it.
            let none = Share.ParticipantPermission.none
            if let root = share.rootRecordName { return grant.roots[root] != nil ? .readOnly : none }
            return grant.zoneWide != nil ? .readOnly : none
        }
        if grant.coversWholeZone && grant.roots.isEmpty { return grant.zoneWide ?? Share.ParticipantPermission.none }
        let name = record.recordID.recordName
        if grant.roots[name] != nil { return grant.permission(recordName: name) }
        guard let parent = record.parent?.recordID.recordName else { return grant.permission(recordName: name) }
        if let permission = grant.roots[parent], parent != name {
            // The best of the record's own grant and its root's (a nearer root cannot be above it).
            let own = grant.permission(recordName: name)
            return own.rawValue > permission.rawValue ? own : permission
        }
        return nil
    }

    /// `desiredKeys` plus the parent key a coverage check needs (none when the grant covers the
    /// whole zone: no parent is read then).
    static func withParent(_ desiredKeys: [String]?, for grant: ShareRules.Grant) -> [String]? {
        guard var keys = desiredKeys else { return nil }
        if grant.coversWholeZone && grant.roots.isEmpty { return keys }
        if !keys.contains(Record.parentKey) { keys.append(Record.parentKey) }
        return keys
    }

    /// `record` under the shared database's `zoneID`; a store that already named it so (its
    /// query pages do, see ``StoreContext/sharedOwner``) is not copied.
    static func shared(_ record: Record, in zoneID: RecordZone.ID) -> Record {
        record.recordID.zoneID == zoneID ? record : record.relocated(to: zoneID)
    }

    // MARK: Forwarded as they are

    func changeStamp() throws -> ChangeStamp { try base.changeStamp() }
    func close() { base.close() }
    func loadSchema() async throws -> Schema { try await base.loadSchema() }
    func updateSchema(rebuildingSearch: Bool, _ change: @escaping @Sendable (Schema) throws -> Schema?) async throws -> Schema {
        try await base.updateSchema(rebuildingSearch: rebuildingSearch, change)
    }
    func resetAll() async throws { try await base.resetAll() }
    func statistics() async throws -> ContainerStatistics { try await base.statistics() }
    func allRecords(zone: RecordZone.ID, types: [String]?, context: StoreContext) async throws -> [Record] {
        try await base.allRecords(zone: zone, types: types, context: context)
    }
    func collectGarbage(gracePeriod: TimeInterval) async throws -> GarbageCollectionReport { try await base.collectGarbage(gracePeriod: gracePeriod) }
    func importAsset(from file: URL, sizeLimit: Int64) async throws -> (digest: String, size: Int64) {
        try await base.importAsset(from: file, sizeLimit: sizeLimit)
    }
    func assetFile(forDigest digest: String) async throws -> URL? { try await base.assetFile(forDigest: digest) }
    var uploadsDirectory: URL { base.uploadsDirectory }
    func openChangeReader() async throws -> any ChangeReader { try await base.openChangeReader() }
    func changeLogIsComplete(afterSequence sequence: Int64) async throws -> Bool { try await base.changeLogIsComplete(afterSequence: sequence) }
    func compactChangeLog(throughSequence: Int64?, olderThan: Date?) async throws -> Int {
        try await base.compactChangeLog(throughSequence: throughSequence, olderThan: olderThan)
    }
    func currentChangeToken() async throws -> ServerChangeToken { try await base.currentChangeToken() }
    func saveSubscriptions(_ subscriptions: [Subscription], context: StoreContext) async throws -> [String: Result<Subscription, CloudError>] {
        try await base.saveSubscriptions(subscriptions, context: context)
    }
    func fetchSubscriptions(_ ids: [String]?, context: StoreContext) async throws -> [String: Result<Subscription, CloudError>] {
        try await base.fetchSubscriptions(ids, context: context)
    }
    func deleteSubscriptions(_ ids: [String], context: StoreContext) async throws -> [String: Result<Void, CloudError>] {
        try await base.deleteSubscriptions(ids, context: context)
    }
}

/// The last catalog read, kept with the container's open store so every database shares it.
final class ShareCatalogCache: Sendable {
    let value = Mutex<(stamp: ChangeStamp, shares: [StoredShare])?>(nil)
}
