import Foundation
import Testing
import LocalCloud

/// The access rules (account, security roles, `_creator`, query indexes and list matches) refuse
/// the same requests with the same message on every store: they are decided once, in `AccessRules`.
@Suite(.serialized) struct AccessConformanceTests {
    @Test(arguments: StoreKind.allCases)
    func refusalsSayTheSameOnEveryStore(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.container(user: "alice").publicCloudDatabase
            let bob = try await store.container(user: "bob").publicCloudDatabase
            let saved = try await alice.save(restaurant("Alice's", recordName: "alices"))

            // WRITE is granted to `_creator` only: another user can neither change nor delete it.
            let copy = try await bob.record(for: saved.recordID)
            copy["name"] = "Bob was here"
            let writeError = await cloudError { _ = try await bob.save(copy) }
            #expect(writeError?.code == .permissionFailure)
            #expect(writeError?.message == "Permission Failure: WRITE operation not permitted on type 'Restaurant' for user 'bob'")
            let deleteError = await cloudError { _ = try await bob.deleteRecord(withID: saved.recordID) }
            #expect(deleteError?.code == .permissionFailure)
            #expect(deleteError?.message == "Permission Failure: WRITE operation not permitted on type 'Restaurant' for user 'bob'")
            #expect(try await alice.record(for: saved.recordID)["name"] as? String == "Alice's")

            // A record of the same name made afresh (no change tag): a conflict as it stands, and
            // with `.allKeys` an update, which WRITE refuses. Neither overwrites nor creates.
            let fresh = restaurant("Bob's", recordName: "alices")
            let freshError = await cloudError { _ = try await bob.save(fresh) }
            #expect(freshError?.code == .serverRecordChanged)
            let (forced, _) = try await bob.modifyRecords(saving: [restaurant("Bob's", recordName: "alices")], deleting: [],
                                                           savePolicy: .allKeys, atomically: true)
            let forcedError = forced[saved.recordID].flatMap { result -> CloudError? in
                if case .failure(let error) = result { error as? CloudError } else { nil }
            }
            #expect(forcedError?.code == .permissionFailure)
            #expect(forcedError?.message == "Permission Failure: WRITE operation not permitted on type 'Restaurant' for user 'bob'")
            #expect(try await alice.record(for: saved.recordID)["name"] as? String == "Alice's")

            // A filter on a field that is not QUERYABLE, and a list match on a field that is no list.
            let unindexed = Query(recordType: "Restaurant", predicate: Predicate(format: "phone == %@", "555"))
            let indexError = await cloudError { _ = try await alice.records(matching: unindexed) }
            #expect(indexError?.code == .invalidArguments)
            #expect(indexError?.message == "Field 'phone' is not marked queryable")
            let notAList = Query(recordType: "Restaurant", predicate: Predicate(format: "name CONTAINS %@", "Alice"))
            let listError = await cloudError { _ = try await alice.records(matching: notAList) }
            #expect(listError?.code == .invalidArguments)
            #expect(listError?.message.hasPrefix("Field 'name' is a STRING, not a list") == true)
        }
    }
}
