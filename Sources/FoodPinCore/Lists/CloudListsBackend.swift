import Foundation
import LocalCloud
import Synchronization

/// Lists of restaurants on LocalCloud: the user's own in a custom zone of their private database,
/// and those shared with them in the shared database.
///
/// ```swift
/// let lists = CloudListsBackend(container: container, discover: discoverBackend)
/// let friday = try await lists.save(restaurantNamed: "Cafe Deadend", toList: "Friday")
/// let overview = try await lists.overview()   // mine: [Friday · 1], sharedWithMe: […]
/// ```
///
/// Only LocalCloud's public API is used. Every error it throws is a ``DiscoverError``.
package final class CloudListsBackend: Sendable {
    package let container: Container
    let discover: CloudDiscoverBackend
    let scaler: ImageScaler
    let temporaryDirectory: URL
    /// Whether the private database's `Lists` zone is known to exist (saved once per process).
    private let zoneReady = Mutex(false)

    package init(container: Container, discover: CloudDiscoverBackend,
                 scaler: ImageScaler = ImageScaler(maxWidth: RestaurantListRecord.thumbnailWidth, quality: 80),
                 temporaryDirectory: URL = FileManager.default.temporaryDirectory) {
        self.container = container
        self.discover = discover
        self.scaler = scaler
        self.temporaryDirectory = temporaryDirectory
    }

    var privateDatabase: Database { container.privateCloudDatabase }
    var ownZoneID: RecordZone.ID { RecordZone.ID(zoneName: RestaurantListRecord.zoneName) }

    /// The database and zone a list lives in.
    func location(of ref: RestaurantListRef) -> (database: Database, zoneID: RecordZone.ID) {
        guard let owner = ref.ownerName else { return (privateDatabase, RecordZone.ID(zoneName: ref.zoneName)) }
        return (container.sharedCloudDatabase, RecordZone.ID(zoneName: ref.zoneName, ownerName: owner))
    }

    // MARK: Reading

    /// Both sections of the Lists screen: my lists with their counts and who they are shared
    /// with, and the lists others shared with me.
    package func overview() async throws -> RestaurantListsOverview {
        do {
            var overview = RestaurantListsOverview()
            overview.mine = try await ownLists()
            overview.sharedWithMe = try await sharedLists()
            overview.isFromCache = container.serverIsReachable == false
            overview.refused = refusedChanges()
            return overview
        } catch {
            throw DiscoverError(error, while: .loadFailed)
        }
    }

    /// My lists, by name; none when the zone was never made.
    func ownLists() async throws -> [RestaurantListSummary] {
        let summaries: [RestaurantListSummary]
        do {
            summaries = try await lists(in: privateDatabase, zoneID: ownZoneID, ownerName: nil)
        } catch let error as CloudError where error.code == .zoneNotFound {
            return []
        } catch let error as CloudError where Self.isOfflineWithoutCache(error, container: container) {
            return []   // away, and this machine never read lists of mine (none, or made elsewhere)
        }
        return try await withSharing(summaries)
    }

    /// A remote container away from its server with nothing cached for the read: the lists it
    /// would show are the ones this machine has read before, so there are none to show.
    static func isOfflineWithoutCache(_ error: CloudError, container: Container) -> Bool {
        (error.code == .networkUnavailable || error.code == .networkFailure) && container.serverIsReachable == false
    }

    /// The lists and their entry counts in one zone.
    func lists(in database: Database, zoneID: RecordZone.ID, ownerName: String?) async throws -> [RestaurantListSummary] {
        let lists = try await allRecords(ofType: RestaurantListRecord.listType, in: database, zoneID: zoneID,
                                         desiredKeys: [RestaurantListRecord.name])
        let entries = try await allRecords(ofType: RestaurantListRecord.entryType, in: database, zoneID: zoneID,
                                           desiredKeys: [RestaurantListRecord.list])
        var counts: [String: Int] = [:]
        for entry in entries {
            if let list = entry[RestaurantListRecord.list] as? Record.Reference { counts[list.recordID.recordName, default: 0] += 1 }
        }
        return lists.map { record in
            RestaurantListSummary(
                ref: RestaurantListRef(recordName: record.recordID.recordName, ownerName: ownerName, zoneName: zoneID.zoneName),
                name: record[RestaurantListRecord.name] as? String ?? "",
                count: counts[record.recordID.recordName] ?? 0)
        }
        .sorted { ($0.name.lowercased(), $0.ref.recordName) < ($1.name.lowercased(), $1.ref.recordName) }
    }

    /// Every record of a type in a zone, oldest first, following cursors.
    func allRecords(ofType type: String, in database: Database, zoneID: RecordZone.ID, desiredKeys: [String]?) async throws -> [Record] {
        let query = Query(recordType: type, predicate: Predicate(value: true))
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: true)]
        var (matches, cursor) = try await database.records(matching: query, inZoneWith: zoneID, desiredKeys: desiredKeys)
        var records = try matches.map { try $0.1.get() }
        while let next = cursor {
            (matches, cursor) = try await database.records(continuingMatchFrom: next, desiredKeys: desiredKeys)
            records += try matches.map { try $0.1.get() }
        }
        return records
    }

    /// A list's entries, oldest first, as rows (`createdBy` is who added each).
    package func entries(of ref: RestaurantListRef) async throws -> [Restaurant] {
        let (database, zoneID) = location(of: ref)
        do {
            let records = try await allRecords(ofType: RestaurantListRecord.entryType, in: database, zoneID: zoneID,
                                               desiredKeys: RestaurantListRecord.entryKeys)
            return records.filter { ($0[RestaurantListRecord.list] as? Record.Reference)?.recordID.recordName == ref.recordName }
                .map(RestaurantListRecord.entry(from:))
        } catch {
            throw DiscoverError(error, while: .loadFailed)
        }
    }

    /// One of my lists, by name (exactly, then ignoring case and accents), or `nil`.
    package func ownList(named name: String) async throws -> RestaurantListSummary? {
        let lists: [RestaurantListSummary]
        do { lists = try await ownLists() } catch { throw DiscoverError(error, while: .loadFailed) }
        return lists.first { $0.name == name }
            ?? lists.first { $0.name.compare(name, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame }
    }

    /// A list by name, mine first, then those shared with me.
    package func list(named name: String) async throws -> RestaurantListSummary {
        let overview = try await overview()
        func named(_ lists: [RestaurantListSummary]) -> RestaurantListSummary? {
            lists.first { $0.name == name }
                ?? lists.first { $0.name.compare(name, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame }
        }
        guard let found = named(overview.mine) ?? named(overview.sharedWithMe) else {
            throw DiscoverError(.notFound, "No list is named “\(name)”")
        }
        return found
    }

    /// The local file of an entry's thumbnail, or `nil` when it has none.
    package func thumbnailFile(forEntry entry: String, in ref: RestaurantListRef) async throws -> URL? {
        let (database, zoneID) = location(of: ref)
        let id = Record.ID(recordName: entry, zoneID: zoneID)
        guard let result = try await database.records(for: [id], desiredKeys: [RestaurantListRecord.thumbnail])[id] else { return nil }
        return (try result.get()[RestaurantListRecord.thumbnail] as? Asset)?.fileURL
    }

    // MARK: Writing

    /// Saves a restaurant (by name or record name) to a list: one of mine, else one shared with me
    /// by that name, else a new list of mine.
    ///
    /// - Returns: the list and whether the restaurant was already on it.
    @discardableResult
    package func save(restaurantNamed text: String, toList listName: String) async throws -> (list: RestaurantListSummary, alreadyThere: Bool) {
        let restaurant = try await discover.restaurant(namedOrRecord: text)
        return try await save(restaurant, toList: listName)
    }

    /// Saves `restaurant` to the list named `listName` (see ``save(restaurantNamed:toList:)``).
    package func save(_ restaurant: Restaurant, toList listName: String) async throws -> (list: RestaurantListSummary, alreadyThere: Bool) {
        let name = listName.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw DiscoverError(.saveFailed, "A list needs a name") }
        guard name.count <= 100 else { throw DiscoverError(.saveFailed, "A list's name is at most 100 characters") }
        var existing = try await ownList(named: name)
        if existing == nil {
            let shared = (try? await sharedLists()) ?? []
            existing = shared.first { $0.name.compare(name, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame }
        }
        if let existing {
            let entries = try await entries(of: existing.ref)
            if let already = try await entrySources(of: existing.ref, among: entries), already.contains(restaurant.id) {
                return (existing, true)
            }
            try await addEntry(restaurant, to: existing.ref)
            var list = existing
            list.count += 1
            return (list, false)
        }
        return (try await createList(named: name, with: restaurant), false)
    }

    /// The Discover record names on a list.
    private func entrySources(of ref: RestaurantListRef, among entries: [Restaurant]) async throws -> Set<String>? {
        let (database, zoneID) = location(of: ref)
        let ids = entries.map { Record.ID(recordName: $0.id, zoneID: zoneID) }
        guard !ids.isEmpty else { return [] }
        do {
            let found = try await database.records(for: ids, desiredKeys: [RestaurantListRecord.restaurant])
            return Set(found.values.compactMap { try? $0.get()[RestaurantListRecord.restaurant] as? String })
        } catch {
            throw DiscoverError(error, while: .loadFailed)
        }
    }

    /// Makes the zone (once), then the list and its first entry in one atomic modify.
    private func createList(named name: String, with restaurant: Restaurant) async throws -> RestaurantListSummary {
        try await ensureZone()
        let list = Record(recordType: RestaurantListRecord.listType, zoneID: ownZoneID)
        list[RestaurantListRecord.name] = name
        let (entry, temporary) = try await entryRecord(for: restaurant, list: list.recordID)
        defer { if let temporary { try? FileManager.default.removeItem(at: temporary) } }
        try await modify(privateDatabase, saving: [list, entry])
        return RestaurantListSummary(ref: RestaurantListRef(recordName: list.recordID.recordName), name: name, count: 1)
    }

    private func addEntry(_ restaurant: Restaurant, to ref: RestaurantListRef) async throws {
        let (database, zoneID) = location(of: ref)
        let (entry, temporary) = try await entryRecord(for: restaurant, list: Record.ID(recordName: ref.recordName, zoneID: zoneID))
        defer { if let temporary { try? FileManager.default.removeItem(at: temporary) } }
        try await modify(database, saving: [entry])
    }

    /// Removes an entry from a list (refused by the store where the user may only read).
    package func removeEntry(_ entry: String, from ref: RestaurantListRef) async throws {
        let (database, zoneID) = location(of: ref)
        do {
            _ = try await database.deleteRecord(withID: Record.ID(recordName: entry, zoneID: zoneID))
        } catch {
            throw DiscoverError(error, while: .deleteFailed)
        }
    }

    /// A new entry for `restaurant` under `list`, with a small JPEG of its photo (and that temporary file).
    private func entryRecord(for restaurant: Restaurant, list: Record.ID) async throws -> (Record, URL?) {
        let entry = Record(recordType: RestaurantListRecord.entryType, zoneID: list.zoneID)
        entry[RestaurantListRecord.name] = restaurant.name
        entry[RestaurantListRecord.type] = restaurant.type
        entry[RestaurantListRecord.location] = restaurant.location
        entry[RestaurantListRecord.restaurant] = restaurant.id
        entry[RestaurantListRecord.list] = Record.Reference(recordID: list, action: .deleteSelf)
        setParent(of: entry, to: list)
        var temporary: URL?
        let image: URL?
        if let file = restaurant.imageFile { image = file } else { image = try? await discover.imageFile(forRecordName: restaurant.id) }
        if let image {
            let output = temporaryDirectory.appendingPathComponent("foodpin-thumb-\(UUID().uuidString).jpg")
            // A photo that will not scale still lets the entry save, without a thumbnail.
            if (try? scaler.scale(fileAt: image, to: output)) != nil {
                temporary = output
                entry[RestaurantListRecord.thumbnail] = Asset(fileURL: output)
            }
        }
        return (entry, temporary)
    }

    /// The private zone that holds my lists, saved once per process (saving it again changes nothing).
    func ensureZone() async throws {
        guard !zoneReady.withLock({ $0 }) else { return }
        do {
            _ = try await privateDatabase.save(RecordZone(zoneID: ownZoneID))
        } catch {
            throw DiscoverError(error, while: .saveFailed)
        }
        zoneReady.withLock { $0 = true }
    }

    /// Saves records atomically; a per-record failure is thrown as the screen says it.
    func modify(_ database: Database, saving records: [Record], deleting: [Record.ID] = []) async throws {
        do {
            let (saves, deletes) = try await database.modifyRecords(saving: records, deleting: deleting)
            for result in saves.values { _ = try result.get() }
            for result in deletes.values { try result.get() }
        } catch {
            throw DiscoverError(error, while: .saveFailed)
        }
    }
}
