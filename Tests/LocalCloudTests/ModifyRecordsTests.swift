import Foundation
import Testing
@testable import LocalCloud

@Suite struct ModifyRecordsTests {
    @Test func atomicBatchWithOneFailureWritesNothing() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let existing = try await db.save(restaurant("existing"))
        let stale = Record(recordType: "Restaurant", recordID: existing.recordID)
        let fresh = restaurant("fresh")
        let (saves, _) = try await db.modifyRecords(saving: [fresh, stale], deleting: [], atomically: true)
        #expect(throws: CloudError.self) { try saves[stale.recordID]?.get() }
        do { _ = try saves[fresh.recordID]?.get() } catch let error as CloudError {
            #expect(error.code == .batchRequestFailed)
        }
        do { _ = try saves[stale.recordID]?.get() } catch let error as CloudError {
            #expect(error.code == .serverRecordChanged)
        }
        await #expect { try await db.record(for: fresh.recordID) } throws: { ($0 as? CloudError)?.code == .unknownItem }
    }

    @Test func nonAtomicBatchReportsPartialFailureWithPerItemErrors() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let existing = try await db.save(restaurant("existing"))
        let stale = Record(recordType: "Restaurant", recordID: existing.recordID)
        let fresh = restaurant("fresh")
        let missing = Record.ID(recordName: "missing")
        let operation = ModifyRecordsOperation(recordsToSave: [fresh, stale], recordIDsToDelete: [missing])
        operation.isAtomic = false
        let perItem = Collected<(Record.ID, Bool)>()
        let final = Collected<CloudError?>()
        operation.perRecordSaveBlock = { id, result in perItem.append((id, (try? result.get()) != nil)) }
        operation.perRecordDeleteBlock = { id, result in perItem.append((id, (try? result.get()) != nil)) }
        operation.modifyRecordsResultBlock = { result in
            if case .failure(let error) = result { final.append(error as? CloudError) } else { final.append(nil) }
        }
        db.add(operation)
        #expect(await poll { final.count == 1 })
        let error = try #require(final.values.first ?? nil)
        #expect(error.code == .partialFailure)
        #expect(error.code.rawValue == 2)
        #expect(error.partialErrorsByItemID[AnyHashableSendable(stale.recordID)]?.code == .serverRecordChanged)
        #expect(error.partialErrorsByItemID[AnyHashableSendable(missing)]?.code == .unknownItem)
        #expect(error.partialErrorsByItemID[AnyHashableSendable(fresh.recordID)] == nil)
        #expect(perItem.values.count == 3)
        #expect(try await db.record(for: fresh.recordID)["name"] as? String == "fresh")
    }

    @Test func moreThan400ItemsIsLimitExceeded() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let records = (0..<401).map { restaurant("r\($0)") }
        await #expect { try await db.modifyRecords(saving: records, deleting: []) } throws: {
            ($0 as? CloudError)?.code == .limitExceeded && ($0 as? CloudError)?.code.rawValue == 27
        }
        let (saves, _) = try await db.modifyRecords(saving: Array(records.prefix(400)), deleting: [])
        #expect(saves.values.allSatisfy { (try? $0.get()) != nil })
        #expect(saves.count == 400)
    }

    @Test func fieldsOver1MBAreLimitExceeded() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let record = restaurant("big")
        record["blob"] = Data(count: 1_000_001)
        await #expect { try await db.save(record) } throws: { ($0 as? CloudError)?.code == .limitExceeded }
        record["blob"] = Data(count: 900_000)
        _ = try await db.save(record)
    }

    @Test func unstorableValuesAndBadNamesAreInvalidArguments() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let nested = restaurant("nested")
        nested["matrix"] = [["a"], ["b"]]
        await #expect { try await db.save(nested) } throws: { ($0 as? CloudError)?.code == .invalidArguments }
        let custom = restaurant("custom")
        custom.setValue(NSObject(), forKey: "thing")
        await #expect { try await db.save(custom) } throws: { ($0 as? CloudError)?.code == .invalidArguments }
        let badName = restaurant("bad")
        badName["no spaces"] = "x"
        await #expect { try await db.save(badName) } throws: {
            guard let error = $0 as? CloudError else { return false }
            return error.code == .invalidArguments && error.message.contains("no spaces")
        }
        let badType = Record(recordType: "Bad Type")
        await #expect { try await db.save(badType) } throws: { ($0 as? CloudError)?.code == .invalidArguments }
    }

    @Test func deleteSelfReferencesCascade() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let parent = try await db.save(restaurant("parent"))
        let child = Record(recordType: "Review")
        child["restaurant"] = Record.Reference(recordID: parent.recordID, action: .deleteSelf)
        _ = try await db.save(child)
        let grandchild = Record(recordType: "Comment")
        grandchild["review"] = Record.Reference(record: child, action: .deleteSelf)
        _ = try await db.save(grandchild)
        let bystander = Record(recordType: "Review")
        bystander["restaurant"] = Record.Reference(recordID: parent.recordID, action: .none)
        _ = try await db.save(bystander)

        try await db.deleteRecord(withID: parent.recordID)
        let results = try await db.records(for: [child.recordID, grandchild.recordID, bystander.recordID])
        #expect(throws: CloudError.self) { try results[child.recordID]?.get() }
        #expect(throws: CloudError.self) { try results[grandchild.recordID]?.get() }
        let kept = try #require(try results[bystander.recordID]?.get())
        #expect((kept["restaurant"] as? Record.Reference)?.recordID == parent.recordID)
    }

    @Test func deletingAMissingRecordIsUnknownItem() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        await #expect { try await db.deleteRecord(withID: Record.ID(recordName: "nope")) } throws: {
            ($0 as? CloudError)?.code == .unknownItem && ($0 as? CloudError)?.code.rawValue == 11
        }
    }
}

/// A thread-safe collector for values reported by operation blocks.
final class Collected<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])
    func append(_ value: Value) { storage.withLock { $0.append(value) } }
    var values: [Value] { storage.withLock { $0 } }
    var count: Int { storage.withLock { $0.count } }
}

import Synchronization
