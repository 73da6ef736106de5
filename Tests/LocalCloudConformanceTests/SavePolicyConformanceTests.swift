import Foundation
import Testing
import LocalCloud

/// The three save policies, conflicts, partial failures and batch limits: the same on every store.
@Suite(.serialized) struct SavePolicyConformanceTests {
    @Test(arguments: StoreKind.allCases)
    func staleSaveFailsWithTheServerRecord(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            let original = try await db.save(restaurant("Version 1", recordName: "v"))
            let mine = try await db.record(for: original.recordID)
            let theirs = try await db.record(for: original.recordID)
            theirs["name"] = "Version 2"
            _ = try await db.save(theirs)
            mine["name"] = "Stale edit"
            let error = await cloudError { _ = try await db.save(mine) }
            #expect(error?.code == .serverRecordChanged)
            #expect(error?.serverRecord?["name"] as? String == "Version 2")
            #expect(try await db.record(for: original.recordID)["name"] as? String == "Version 2")
        }
    }

    /// Conflicts and refusals carry the same message on every store, written once above the stores.
    @Test(arguments: StoreKind.allCases)
    func conflictsSayTheSameOnEveryStore(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            let original = try await db.save(restaurant("Version 1", recordName: "same"))
            let stale = try await db.record(for: original.recordID)
            let fresh = try await db.record(for: original.recordID)
            fresh["name"] = "Version 2"
            let current = try await db.save(fresh)
            let tag = try #require(current.recordChangeTag)

            // A stale save.
            stale["name"] = "Stale edit"
            let saveError = await cloudError { _ = try await db.save(stale) }
            #expect(saveError?.code == .serverRecordChanged)
            #expect(saveError?.message == "Record same changed on the server since it was fetched (server tag \(tag))")

            // The same name with another type.
            let other = Record(recordType: "Item", recordID: Record.ID(recordName: "same"))
            other["title"] = "Not a restaurant"
            let typeError = await cloudError { _ = try await db.save(other) }
            #expect(typeError?.code == .invalidArguments)
            #expect(typeError?.message == "Record same exists with type Restaurant, not Item")

            // A save of a fetched record that was deleted since.
            let gone = try await db.save(restaurant("Gone", recordName: "gone"))
            let fetched = try await db.record(for: gone.recordID)
            _ = try await db.deleteRecord(withID: gone.recordID)
            fetched["name"] = "Back?"
            let goneError = await cloudError { _ = try await db.save(fetched) }
            #expect(goneError?.code == .unknownItem)
            #expect(goneError?.message == "Record gone no longer exists on the server")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func changedKeysOverwritesOnlyWhatChanged(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            let original = try await db.save(restaurant("Kept", recordName: "ck"))
            let other = try await db.record(for: original.recordID)
            other["phone"] = "555-0199"
            _ = try await db.save(other)
            // A stale copy that changes only the type: changedKeys writes it without the conflict check.
            let stale = try await db.record(for: original.recordID)
            stale["type"] = "Bistro"
            let (saves, _) = try await db.modifyRecords(saving: [stale], deleting: [], savePolicy: .changedKeys)
            _ = try #require(saves[stale.recordID]).get()
            let now = try await db.record(for: original.recordID)
            #expect(now["type"] as? String == "Bistro")
            #expect(now["phone"] as? String == "555-0199")
            #expect(now["name"] as? String == "Kept")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func allKeysReplacesTheWholeRecord(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            let original = restaurant("Full", recordName: "ak")
            original["phone"] = "555-0000"
            _ = try await db.save(original)
            let replacement = restaurant("Replaced", recordName: "ak")
            let (saves, _) = try await db.modifyRecords(saving: [replacement], deleting: [], savePolicy: .allKeys)
            _ = try #require(saves[replacement.recordID]).get()
            let now = try await db.record(for: replacement.recordID)
            #expect(now["name"] as? String == "Replaced")
            #expect(now["phone"] == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func nonAtomicBatchReportsEachFailure(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            let existing = try await db.save(restaurant("Existing", recordName: "exists"))
            let stale = try await db.record(for: existing.recordID)
            let fresh = try await db.record(for: existing.recordID)
            fresh["name"] = "Newer"
            _ = try await db.save(fresh)
            stale["name"] = "Older"
            let good = restaurant("Good", recordName: "good")
            let (saves, deletes) = try await db.modifyRecords(
                saving: [good, stale], deleting: [Record.ID(recordName: "never-was")], savePolicy: .ifServerRecordUnchanged, atomically: false)
            #expect((try? saves[good.recordID]?.get()) != nil)
            #expect((saves[stale.recordID].flatMap { result -> CloudError? in
                if case .failure(let error) = result { return error as? CloudError } else { return nil }
            })?.code == .serverRecordChanged)
            _ = deletes
            #expect(try await db.record(for: good.recordID)["name"] as? String == "Good")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func atomicBatchFailsAsAWhole(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            let existing = try await db.save(restaurant("Existing", recordName: "atomic-exists"))
            let stale = try await db.record(for: existing.recordID)
            let fresh = try await db.record(for: existing.recordID)
            fresh["name"] = "Newer"
            _ = try await db.save(fresh)
            stale["name"] = "Older"
            let good = restaurant("Would Be Saved", recordName: "atomic-good")
            let (saves, _) = try await db.modifyRecords(saving: [good, stale], deleting: [], savePolicy: .ifServerRecordUnchanged, atomically: true)
            let goodError: CloudError? = if case .failure(let error)? = saves[good.recordID] { error as? CloudError } else { nil }
            #expect(goodError?.code == .batchRequestFailed)
            let missing = await cloudError { _ = try await db.record(for: good.recordID) }
            #expect(missing?.code == .unknownItem)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func tooManyItemsIsLimitExceeded(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let db = try await store.container(user: "alice").publicCloudDatabase
            let records = (0...ModifyRecordsOperation.maximumItems).map { restaurant("N\($0)") }
            let error = await cloudError { _ = try await db.modifyRecords(saving: records, deleting: []) }
            #expect(error?.code == .limitExceeded)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func othersCannotChangeYourRecord(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.container(user: "alice").publicCloudDatabase
            let bob = try await store.container(user: "bob").publicCloudDatabase
            let saved = try await alice.save(restaurant("Alice's", recordName: "alices"))
            let copy = try await bob.record(for: saved.recordID)
            copy["name"] = "Bob was here"
            let error = await cloudError { _ = try await bob.save(copy) }
            #expect(error?.code == .permissionFailure)
            #expect(try await alice.record(for: saved.recordID)["name"] as? String == "Alice's")
        }
    }
}
