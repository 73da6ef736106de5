import Foundation
import LocalCloud
import Synchronization

/// The Discover screen's backend on LocalCloud's public database.
///
/// ```swift
/// let container = Container(configuration: .fromEnvironment())
/// let backend = CloudDiscoverBackend(container: container,
///                                    seeder: SampleSeeder(container: container, assets: assetsDirectory))
/// let page = try await backend.firstPage(limit: 50)   // newest first, without image data
/// ```
///
/// Only LocalCloud's public async API is used, as any CloudKit app would: `records(matching:)`
/// and `records(continuingMatchFrom:)` for pages (sorted by `creationDate` descending,
/// `desiredKeys` without `image`), `records(for:desiredKeys: ["image"])` per thumbnail, `save`
/// and `deleteRecord(withID:)`. Every error it throws is a ``DiscoverError``.
package final class CloudDiscoverBackend: DiscoverBackend {
    package let container: Container
    package var database: Database { container.publicCloudDatabase }
    let scaler: ImageScaler
    let temporaryDirectory: URL
    private let seeder: SampleSeeder?
    /// The one seeding run, started by the first query and awaited by every query after it.
    private let seeding = Mutex<Task<Void, Never>?>(nil)
    /// Where the loaded pages are current to: a refresh fetches the changes after it.
    private let changeToken = Mutex<ServerChangeToken?>(nil)

    /// - Parameters:
    ///   - container: the container whose public database holds the restaurants.
    ///   - seeder: run once before the first query, so a fresh container shows the samples.
    ///   - scaler: how uploaded photos are scaled (1024 wide, JPEG quality 80).
    ///   - temporaryDirectory: where the scaled JPEG waits for the save; removed afterwards.
    package init(
        container: Container, seeder: SampleSeeder? = nil, scaler: ImageScaler = ImageScaler(),
        temporaryDirectory: URL = FileManager.default.temporaryDirectory
    ) {
        self.container = container
        self.seeder = seeder
        self.scaler = scaler
        self.temporaryDirectory = temporaryDirectory
    }

    /// The signed-in user's name (`alice`), or `nil` without an account.
    package var currentUser: String? { container.configuration.user }

    // MARK: Pages

    package func firstPage(limit: Int) async throws -> DiscoverPage {
        await seedOnce()
        let page = withPendingChanges(try await pageOrPendingOnly(limit: limit))
        // Taken after the page, so that a server that never answers costs one timeout, not two;
        // a change in between still shows: the page's rows are read again by every refresh, and
        // later pages are read after the token. Offline, a remote container answers at once with
        // the token its cache is current to.
        if let token = try? await container.currentChangeToken() { changeToken.withLock { $0 = token } }
        return page
    }

    /// The first page as this machine last read it from the server, from the remote container's
    /// cache (no request), with the changes waiting to upload; `nil` for a local container.
    package func cachedFirstPage(limit: Int) async -> DiscoverPage? {
        let limit = min(max(1, limit), QueryOperation.maximumResultsLimit)
        guard let cached = try? await container.cachedRecords(matching: RestaurantRecord.discoverQuery(),
                                                              desiredKeys: RestaurantRecord.listKeys, resultsLimit: limit)
        else { return nil }
        let page = DiscoverPage(restaurants: cached.records.map(RestaurantRecord.restaurant(from:)),
                                cursor: cached.cursor.map { PageCursor($0) })
        return withPendingChanges(page)
    }

    /// The first page, and the catch-up: restaurants deleted or changed since the last page was
    /// read, on any page, through the zone's change token (`recordZoneChanges`). A token the store
    /// no longer knows (a compacted log, a new server) gives the first page alone.
    package func refresh(limit: Int) async throws -> DiscoverPage {
        // Back from offline: this machine's queued changes go up first, so the page shows them uploaded.
        if container.pendingChanges().contains(where: { $0.failure == nil }) { await container.waitForUploads(upTo: .seconds(10)) }
        guard let since = changeToken.withLock({ $0 }) else { return try await firstPage(limit: limit) }
        var page = withPendingChanges(try await pageOrPendingOnly(limit: limit))
        guard !page.isFromCache else { return page }
        do {
            var token = since
            var moreComing = true
            var updated: [String: Restaurant] = [:]
            while moreComing {
                let changes = try await database.recordZoneChanges(inZoneWith: .default, since: token, desiredKeys: RestaurantRecord.listKeys)
                for deletion in changes.deletions where deletion.recordType == RestaurantRecord.recordType {
                    page.deletedIDs.insert(deletion.recordID.recordName)
                    updated[deletion.recordID.recordName] = nil
                }
                for (id, result) in changes.modificationResultsByID {
                    guard case .success(let change) = result, change.record.recordType == RestaurantRecord.recordType else { continue }
                    updated[id.recordName] = RestaurantRecord.restaurant(from: change.record)
                    page.deletedIDs.remove(id.recordName)
                }
                token = changes.changeToken
                moreComing = changes.moreComing
            }
            // The server's version with this machine's edit waiting or refused over it, as on the
            // page: applied after the page, the bare version would hide the edit and its refusal.
            page.updated = overlayingPendingEdits(on: Array(updated.values), pending: container.pendingChanges())
            changeToken.withLock { $0 = token }
        } catch let error as CloudError where error.code == .changeTokenExpired {
            changeToken.withLock { $0 = nil }
        } catch {
            // The server went away between the page and the changes: the next refresh asks again.
        }
        return page
    }

    /// The Discover query's first page; offline with nothing cached yet but changes waiting in the
    /// outbox, an empty page from the cache, so that the adds made offline still show.
    private func pageOrPendingOnly(limit: Int) async throws -> DiscoverPage {
        do {
            return try await page(of: RestaurantRecord.discoverQuery(), limit: limit)
        } catch let error as DiscoverError where error.code == .offline && !container.pendingChanges().isEmpty {
            var page = DiscoverPage(restaurants: [], cursor: nil)
            page.isFromCache = true
            return page
        }
    }

    /// The first page as it will be once the outbox has uploaded: adds made offline at the top,
    /// marked waiting (or with the server's refusal), deletes made offline left out. A delete the
    /// server refused (the restaurant changed since, or may not be deleted) shows the row again,
    /// as the server has it, with the reason.
    func withPendingChanges(_ page: DiscoverPage) -> DiscoverPage {
        let pending = container.pendingChanges()
        guard !pending.isEmpty else { return page }
        var page = page
        let deleted = Set(pending.filter { $0.isDelete && $0.failure == nil }.map(\.recordID.recordName))
        page.restaurants.removeAll { deleted.contains($0.id) }
        for change in pending where change.isDelete {
            guard let failure = change.failure else { continue }
            let index = page.restaurants.firstIndex { $0.id == change.recordID.recordName }
            guard var restaurant = index.map({ page.restaurants[$0] }) ?? change.serverRecord.map(RestaurantRecord.restaurant(from:))
            else { continue }
            restaurant.uploadFailure = failure
            if let index { page.restaurants[index] = restaurant } else { page.restaurants.insert(restaurant, at: 0) }
        }
        page.restaurants = overlayingPendingEdits(on: page.restaurants, pending: pending)
        let waiting = pending.reversed().compactMap { change -> Restaurant? in
            guard let record = change.record, record.recordType == RestaurantRecord.recordType,
                  record.recordChangeTag == nil else { return nil }
            var restaurant = RestaurantRecord.restaurant(from: record)
            restaurant.isWaiting = true
            restaurant.uploadFailure = change.failure
            return restaurant
        }
        let ids = Set(waiting.map(\.id))
        page.restaurants = waiting + page.restaurants.filter { !ids.contains($0.id) }
        return page
    }

    /// `restaurants` with this machine's edits made offline (saves of records read from the
    /// server, so with a change tag) in place, with the creator and creation date of the row
    /// each changes: marked waiting, or with the server's refusal and its version for the form.
    func overlayingPendingEdits(on restaurants: [Restaurant], pending: [PendingChange]) -> [Restaurant] {
        var restaurants = restaurants
        for change in pending where !change.isDelete && change.record?.recordChangeTag != nil {
            guard let record = change.record, record.recordType == RestaurantRecord.recordType,
                  let index = restaurants.firstIndex(where: { $0.id == record.recordID.recordName }) else { continue }
            let shown = restaurants[index]
            var restaurant = RestaurantRecord.restaurant(from: record)
            (restaurant.createdAt, restaurant.createdBy) = (shown.createdAt, shown.createdBy)
            restaurant.isWaiting = true
            restaurant.uploadFailure = change.failure
            if let failure = change.failure {
                // Refused: the server's version (from the conflict, else the row as the server
                // has it) lets the form resolve it.
                var theirs = change.serverRecord.map(RestaurantRecord.restaurant(from:)) ?? shown
                (theirs.createdAt, theirs.createdBy) = (shown.createdAt, shown.createdBy)
                (theirs.isWaiting, theirs.uploadFailure, theirs.refusedEdit) = (false, nil, nil)
                let myPhoto = record[RestaurantRecord.image] == nil ? nil : restaurant.imageFile
                restaurant.refusedEdit = RefusedEdit(reason: failure, theirs: theirs, myPhoto: myPhoto)
            }
            restaurants[index] = restaurant
        }
        return restaurants
    }

    package func nextPage(after cursor: PageCursor, limit: Int) async throws -> DiscoverPage {
        guard let queryCursor = cursor.token as? Query.Cursor else {
            throw DiscoverError(.loadFailed, "Invalid page cursor")
        }
        return try await page(limit: limit) { database, keys, limit in
            try await database.records(continuingMatchFrom: queryCursor, desiredKeys: keys, resultsLimit: limit)
        }
    }

    /// Every restaurant newest first, up to `limit`, through the same query as the screen;
    /// with `includingImages`, each one's `imageFile` is fetched too (`foodpin list --json`).
    /// With `text`, only those matching every word of it, as the screen's search finds them
    /// (`foodpin list --search TEXT`).
    package func restaurants(matching text: String? = nil, limit: Int?, includingImages: Bool) async throws -> [Restaurant] {
        await seedOnce()
        let query: Query
        if let text {
            guard let search = RestaurantRecord.searchQuery(text) else { return [] }
            query = search
        } else {
            query = RestaurantRecord.discoverQuery()
        }
        var result: [Restaurant] = []
        var current = try await page(of: query, limit: Self.pageSize(limit, have: 0))
        while true {
            result += current.restaurants
            if let limit, result.count >= limit { result = Array(result.prefix(limit)); break }
            guard let cursor = current.cursor else { break }
            current = try await nextPage(after: cursor, limit: Self.pageSize(limit, have: result.count))
        }
        if includingImages {
            do { try await attachImageFiles(&result) } catch { throw DiscoverError(error, while: .loadFailed) }
        }
        return result
    }

    /// The largest page the store serves when there is no limit, else what is still wanted.
    private static func pageSize(_ limit: Int?, have: Int) -> Int {
        let largest = QueryOperation.maximumResultsLimit
        guard let limit else { return largest }
        return max(1, min(largest, limit - have))
    }

    /// The first page of `query` (the list's or a search's), without seeding.
    func page(of query: Query, limit: Int) async throws -> DiscoverPage {
        try await page(limit: limit) { database, keys, limit in
            try await database.records(matching: query, desiredKeys: keys, resultsLimit: limit)
        }
    }

    /// One page of the list's fields, `limit` clamped to what a query may ask for.
    private func page(
        limit: Int,
        _ query: (Database, [String], Int) async throws
            -> (matchResults: [(Record.ID, Result<Record, any Error>)], queryCursor: Query.Cursor?)
    ) async throws -> DiscoverPage {
        do {
            let limit = min(max(1, limit), QueryOperation.maximumResultsLimit)
            let (matches, cursor) = try await query(database, RestaurantRecord.listKeys, limit)
            let restaurants = matches.compactMap { _, result in (try? result.get()).map(RestaurantRecord.restaurant(from:)) }
            var page = DiscoverPage(restaurants: restaurants, cursor: cursor.map { PageCursor($0) })
            page.isFromCache = container.serverIsReachable == false
            return page
        } catch {
            throw DiscoverError(error, while: .loadFailed)
        }
    }

    // MARK: Images

    /// The local file of a restaurant's image, or `nil` if it has none.
    ///
    /// One `FetchRecordsOperation` with `desiredKeys: ["image"]`: no other field is read.
    package func imageFile(forRecordName recordName: String) async throws -> URL? {
        let id = Record.ID(recordName: recordName)
        guard let result = try await database.records(for: [id], desiredKeys: [RestaurantRecord.image])[id] else { return nil }
        return (try result.get()[RestaurantRecord.image] as? Asset)?.fileURL
    }

    /// Fills in `imageFile` for each restaurant, fetching only the image key, 400 IDs per operation.
    private func attachImageFiles(_ restaurants: inout [Restaurant]) async throws {
        var files: [String: URL] = [:]
        let ids = restaurants.map { Record.ID(recordName: $0.id) }
        for start in stride(from: 0, to: ids.count, by: FetchRecordsOperation.maximumRecords) {
            let chunk = Array(ids[start..<min(ids.count, start + FetchRecordsOperation.maximumRecords)])
            let found = try await database.records(for: chunk, desiredKeys: [RestaurantRecord.image])
            for (id, result) in found {
                if case .success(let record) = result, let url = (record[RestaurantRecord.image] as? Asset)?.fileURL {
                    files[id.recordName] = url
                }
            }
        }
        for index in restaurants.indices { restaurants[index].imageFile = files[restaurants[index].id] }
    }

    // MARK: Changes

    /// The subscription the Discover screen listens with: every Restaurant created, changed or deleted.
    static let subscriptionID = "foodpin-discover"

    /// Other users' changes as they happen: a `QuerySubscription` on Restaurant (saved once per
    /// user; saving it again replaces it) and `container.notifications`, skipping the current
    /// user's own changes. The stream finishes without an account, since nothing can be subscribed.
    package func changes() -> AsyncStream<[RemoteChange]> {
        let container = container
        let database = database
        let ownRecordName = container.configuration.user.map { "_" + $0 }
        return AsyncStream<[RemoteChange]> { continuation in
            let task = Task {
                let subscription = QuerySubscription(
                    recordType: RestaurantRecord.recordType, predicate: Predicate(value: true),
                    subscriptionID: Self.subscriptionID,
                    options: [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion])
                var attempt = 0
                while true {
                    do {
                        _ = try await database.save(subscription)
                        break
                    } catch let error as CloudError where error.code == .networkUnavailable || error.code == .networkFailure {
                        // A server that is away (a remote container started offline): subscribe once it
                        // answers, within 2 s of its return (a refused connection costs nothing).
                        try? await Task.sleep(for: .seconds(min(2, 1 << min(attempt, 1))))
                        attempt += 1
                        if Task.isCancelled { break }
                    } catch {
                        continuation.finish()
                        return
                    }
                }
                for await notification in container.notifications {
                    guard notification.subscriptionID == Self.subscriptionID, let id = notification.recordID else { continue }
                    if let ownRecordName, notification.modifiedBy?.recordName == ownRecordName { continue }
                    let kind = Self.kind(notification.queryNotificationReason)
                    // An update's version, so a list that already shows it (a refresh read it) does not count it.
                    let tag = kind == .updated ? await Self.changeTag(of: id, in: database) : nil
                    continuation.yield([RemoteChange(recordID: id.recordName, kind: kind, changeTag: tag)])
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The record's change tag now (one fetch of no fields), or `nil` when it cannot be read.
    static func changeTag(of id: Record.ID, in database: Database) async -> String? {
        guard case .success(let record)? = try? await database.records(for: [id], desiredKeys: [])[id] else { return nil }
        return record.recordChangeTag
    }

    /// Whether the server answers, now and on each change: a remote container's reachability
    /// (the push stream's loss confirmed by a probe); a local container's stream ends at once.
    package func reachability() -> AsyncStream<Bool> {
        container.reachabilityChanges()
    }

    static func kind(_ reason: CloudNotification.Reason) -> RemoteChange.Kind {
        switch reason {
        case .recordCreated: .created
        case .recordUpdated: .updated
        case .recordDeleted: .deleted
        }
    }

    // MARK: Seeding

    /// Runs the seeder once; later calls wait for that run. Seeding failures leave the
    /// database as it was (the query then shows what there is), so they are not fatal.
    package func seedOnce() async {
        guard let seeder else { return }
        let task = seeding.withLock { task in
            if let task { return task }
            let started = Task { _ = try? await seeder.seedIfNeeded() }
            task = started
            return started
        }
        await task.value
    }
}
