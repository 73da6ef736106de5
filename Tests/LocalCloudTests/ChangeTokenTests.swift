import Foundation
import Synchronization
import Testing
@testable import LocalCloud

/// `recordZoneChanges`/`databaseChanges`, their operations, paging with `moreComing`, restarts and expiry.
@Suite struct ChangeTokenTests {
    typealias Page = (modificationResultsByID: [Record.ID: Result<Database.RecordZoneChange.Modification, any Error>],
                      deletions: [Database.RecordZoneChange.Deletion], changeToken: ServerChangeToken, moreComing: Bool)

    /// Fetches every page after `token`; returns the changed names, deleted names and the last token.
    func drain(_ db: Database, since token: ServerChangeToken?, limit: Int, pages: inout [Int])
        async throws -> (changed: [String], deleted: [String], token: ServerChangeToken) {
        var token = token
        var changed: [String] = [], deleted: [String] = []
        while true {
            let page: Page = try await db.recordZoneChanges(inZoneWith: .default, since: token, resultsLimit: limit)
            pages.append(page.modificationResultsByID.count + page.deletions.count)
            changed += try page.modificationResultsByID.values.map { try $0.get().record.recordID.recordName }
            deleted += page.deletions.map(\.recordID.recordName)
            token = page.changeToken
            if !page.moreComing { break }
        }
        guard let token else { throw CloudError(.internalError, "no token") }
        return (changed, deleted, token)
    }

    @Test func aPositionIsTheSameBytesInEveryProcess() throws {
        // Sorted keys, not the hash seed's order: a restarted server gives a client that is up to
        // date the very token it holds.
        let token = ServerChangeToken(epoch: "e1", sequence: 300)
        #expect(String(decoding: token.data, as: UTF8.self) == #"{"epoch":"e1","sequence":300}"#)
        let snapshot = ServerChangeToken(epoch: "e1", sequence: 300, snapshotAfterRowID: 7)
        #expect(String(decoding: snapshot.data, as: UTF8.self) == #"{"epoch":"e1","sequence":300,"snapshotAfterRowID":7}"#)
        #expect(try ServerChangeToken(data: snapshot.data) == snapshot)
    }

    @Test func firstFetchPagesTheCurrentRecordsThenChangesFollow() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        var names: [String] = []
        for i in 0..<7 {
            names.append(try await db.save(restaurant("R\(i)")).recordID.recordName)
        }
        try await db.deleteRecord(withID: Record.ID(recordName: names[6]))
        var pages: [Int] = []
        let first = try await drain(db, since: nil, limit: 3, pages: &pages)
        #expect(pages == [3, 3])
        #expect(Set(first.changed) == Set(names.prefix(6)))
        #expect(first.deleted.isEmpty)

        // Changes after the token: one update, one delete, ten creates; collapsed per record, paged by 4.
        let updated = try await db.record(for: Record.ID(recordName: names[0]))
        updated["name"] = "R0 renamed"
        _ = try await db.save(updated)
        _ = try await db.save(try await db.record(for: Record.ID(recordName: names[0])))   // a second update of the same record
        try await db.deleteRecord(withID: Record.ID(recordName: names[1]))
        var created: [String] = []
        for i in 0..<10 { created.append(try await db.save(restaurant("New\(i)")).recordID.recordName) }
        pages = []
        let next = try await drain(db, since: first.token, limit: 4, pages: &pages)
        #expect(pages == [4, 4, 4])
        #expect(next.changed == [names[0]] + created || Set(next.changed) == Set([names[0]] + created))
        #expect(next.deleted == [names[1]])

        // Nothing new: an empty page, the same position.
        let empty = try await db.recordZoneChanges(inZoneWith: .default, since: next.token)
        #expect(empty.modificationResultsByID.isEmpty && empty.deletions.isEmpty && !empty.moreComing)
        #expect(empty.changeToken == next.token)
    }

    @Test func deletionsCarryTheRecordType() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let token = try await db.recordZoneChanges(inZoneWith: .default, since: nil).changeToken
        let saved = try await db.save(restaurant("Short-lived"))
        try await db.deleteRecord(withID: saved.recordID)
        let page = try await db.recordZoneChanges(inZoneWith: .default, since: token)
        #expect(page.modificationResultsByID.isEmpty)
        #expect(page.deletions == [Database.RecordZoneChange.Deletion(recordID: saved.recordID, recordType: "Restaurant")])
    }

    @Test func aSerializedTokenWorksAfterARestartAndAnotherProcessWrites() async throws {
        let cloud = TestCloud()
        let token: Data
        do {
            let db = cloud.container().publicCloudDatabase
            _ = try await db.save(restaurant("Before"))
            token = try await db.recordZoneChanges(inZoneWith: .default, since: nil).changeToken.data
        }
        let child = try MultiProcessTests.launch([
            "--data-dir", cloud.directory.path, "--user", "bob", "--prefix", "bob", "--count", "3", "--container", "iCloud.Test",
        ])
        #expect(await poll(timeout: .seconds(60)) { !child.isRunning })
        #expect(child.terminationStatus == 0)
        let restored = try ServerChangeToken(data: token)
        let page = try await cloud.container(user: "carol").publicCloudDatabase.recordZoneChanges(inZoneWith: .default, since: restored)
        #expect(Set(page.modificationResultsByID.keys.map(\.recordName)) == ["bob-0", "bob-1", "bob-2"])
        #expect(try page.modificationResultsByID.values.allSatisfy { try $0.get().record.creatorUserRecordID?.recordName == "_bob" })
        #expect(await code { _ = try ServerChangeToken(data: Data("garbage".utf8)) } == .invalidArguments)
    }

    @Test func compactionExpiresOlderTokens() async throws {
        let cloud = TestCloud()
        let container = cloud.container()
        let db = container.publicCloudDatabase
        let old = try await db.recordZoneChanges(inZoneWith: .default, since: nil).changeToken
        _ = try await db.save(restaurant("A"))
        let middle = try await db.recordZoneChanges(inZoneWith: .default, since: old).changeToken
        _ = try await db.save(restaurant("B"))
        let removed = try await container.compactChangeLog(keepingAfter: middle)
        #expect(removed == 1)
        let error = await code { _ = try await db.recordZoneChanges(inZoneWith: .default, since: old) }
        #expect(error == .changeTokenExpired)
        #expect(error?.rawValue == 21)
        let stillGood = try await db.recordZoneChanges(inZoneWith: .default, since: middle)
        #expect(stillGood.modificationResultsByID.count == 1)

        // By age: everything before now goes, so even the middle token expires.
        let dropped = try await container.compactChangeLog(olderThan: Date().addingTimeInterval(1))
        #expect(dropped == 1)
        #expect(await code { _ = try await db.recordZoneChanges(inZoneWith: .default, since: middle) } == .changeTokenExpired)
        // Starting over without a token still works, and the new token works.
        let fresh = try await db.recordZoneChanges(inZoneWith: .default, since: nil)
        #expect(fresh.modificationResultsByID.count == 2)
        #expect(try await db.recordZoneChanges(inZoneWith: .default, since: fresh.changeToken).modificationResultsByID.isEmpty)
    }

    @Test func aTokenFromAnotherDatabaseFileIsExpired() async throws {
        let one = TestCloud(), two = TestCloud()
        let token = try await one.container().publicCloudDatabase.recordZoneChanges(inZoneWith: .default, since: nil).changeToken
        let error = await code { _ = try await two.container().publicCloudDatabase.recordZoneChanges(inZoneWith: .default, since: token) }
        #expect(error == .changeTokenExpired)
    }

    @Test func databaseChangesListChangedAndDeletedZones() async throws {
        let cloud = TestCloud()
        let db = cloud.container().privateCloudDatabase
        let a = RecordZone.ID(zoneName: "A"), b = RecordZone.ID(zoneName: "B")
        _ = try await db.save(RecordZone(zoneID: a))
        _ = try await db.save(RecordZone(zoneID: b))
        let initial = try await db.databaseChanges(since: nil)
        #expect(Set(initial.modifications.map(\.zoneID.zoneName)) == ["A", "B", RecordZone.ID.defaultZoneName])
        _ = try await db.save(Record(recordType: "Note", zoneID: a))
        _ = try await db.save(Record(recordType: "Note", zoneID: b))
        try await db.deleteRecordZone(withID: b)
        let changes = try await db.databaseChanges(since: initial.changeToken)
        #expect(changes.modifications.map(\.zoneID.zoneName) == ["A"])
        #expect(changes.deletions.map(\.zoneID.zoneName) == ["B"])
        #expect(!changes.moreComing)
        // Paged one zone at a time.
        let firstPage = try await db.databaseChanges(since: initial.changeToken, resultsLimit: 1)
        #expect(firstPage.modifications.map(\.zoneID.zoneName) == ["A"] && firstPage.moreComing)
        let secondPage = try await db.databaseChanges(since: firstPage.changeToken, resultsLimit: 1)
        #expect(secondPage.deletions.map(\.zoneID.zoneName) == ["B"] && !secondPage.moreComing)
        // Another user's private changes are not ours.
        _ = try await cloud.container(user: "bob").privateCloudDatabase.save(Record(recordType: "Note"))
        #expect(try await db.databaseChanges(since: changes.changeToken).modifications.isEmpty)
    }

    @Test func fetchRecordZoneChangesOperationFetchesEveryPage() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        for i in 0..<9 { _ = try await db.save(restaurant("R\(i)")) }
        let changed = Mutex<[String]>([])
        let tokenUpdates = Mutex(0)
        let operation = FetchRecordZoneChangesOperation(recordZoneIDs: [.default],
                                                        configurationsByRecordZoneID: [.default: .init(resultsLimit: 2, desiredKeys: ["name"])])
        operation.recordWasChangedBlock = { _, result in
            if let record = try? result.get() { changed.withLock { $0.append(record["name"] as? String ?? "?") } }
        }
        operation.recordZoneChangeTokensUpdatedBlock = { _, _, _ in tokenUpdates.withLock { $0 += 1 } }
        let zoneResult = Mutex<FetchRecordZoneChangesOperation.ZoneResult?>(nil)
        operation.recordZoneFetchResultBlock = { _, result in zoneResult.withLock { $0 = try? result.get() } }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            operation.fetchRecordZoneChangesResultBlock = { continuation.resume(with: $0) }
            db.add(operation)
        }
        #expect(Set(changed.withLock { $0 }) == Set((0..<9).map { "R\($0)" }))
        #expect(tokenUpdates.withLock { $0 } == 4)
        let final = try #require(zoneResult.withLock { $0 })
        #expect(!final.moreComing)

        // The database operation from that token sees one more change.
        _ = try await db.save(restaurant("Late"))
        let zones = Mutex<[String]>([])
        let databaseOperation = FetchDatabaseChangesOperation(previousServerChangeToken: final.serverChangeToken)
        databaseOperation.recordZoneWithIDChangedBlock = { zoneID in zones.withLock { $0.append(zoneID.zoneName) } }
        let result = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(serverChangeToken: ServerChangeToken, moreComing: Bool), any Error>) in
            databaseOperation.fetchDatabaseChangesResultBlock = { continuation.resume(with: $0) }
            db.add(databaseOperation)
        }
        #expect(zones.withLock { $0 } == [RecordZone.ID.defaultZoneName])
        #expect(!result.moreComing)
    }

    @Test func anExpiredTokenFailsTheZoneInTheOperation() async throws {
        let cloud = TestCloud()
        let container = cloud.container()
        let db = container.publicCloudDatabase
        let old = try await db.recordZoneChanges(inZoneWith: .default, since: nil).changeToken
        _ = try await db.save(restaurant("A"))
        try await container.compactChangeLog(keepingAfter: try await container.currentChangeToken())
        let zoneError = Mutex<CloudError?>(nil)
        let operation = FetchRecordZoneChangesOperation(recordZoneIDs: [.default],
                                                        configurationsByRecordZoneID: [.default: .init(previousServerChangeToken: old)])
        operation.recordZoneFetchResultBlock = { _, result in
            if case .failure(let error) = result { zoneError.withLock { $0 = error as? CloudError } }
        }
        let overall = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, any Error>, Never>) in
            operation.fetchRecordZoneChangesResultBlock = { continuation.resume(returning: $0) }
            db.add(operation)
        }
        #expect(zoneError.withLock { $0?.code } == .changeTokenExpired)
        if case .failure(let error as CloudError) = overall { #expect(error.code == .partialFailure) } else { Issue.record("expected a partial failure") }
    }
}
