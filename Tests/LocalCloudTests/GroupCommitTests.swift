import Foundation
import Testing
@testable import LocalCloud

@Suite("group commit")
struct GroupCommitTests {
    /// Concurrent writes share transactions, yet each keeps its own outcome: a failed atomic batch
    /// leaves nothing behind, and the saves around it all land.
    @Test func concurrentWritesKeepTheirOwnOutcomes() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        _ = try await db.save(restaurant("taken").withName("taken"))
        let results = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<48 {
                group.addTask {
                    if index % 4 == 0 {
                        // Atomic: a new record plus a create of a taken name; both must fail.
                        let (saved, _) = try await db.modifyRecords(
                            saving: [restaurant("n").withName("doomed-\(index)"), restaurant("x").withName("taken")],
                            deleting: [], savePolicy: .ifServerRecordUnchanged, atomically: true)
                        return (index, saved.values.allSatisfy { (try? $0.get()) == nil })
                    }
                    let saved = try await db.save(restaurant("r").withName("ok-\(index)"))
                    return (index, saved.recordChangeTag != nil)
                }
            }
            var all: [(Int, Bool)] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 48)
        #expect(results.filter { !$0.1 }.isEmpty)
        for index in 0..<48 {
            let found = await code { _ = try await db.record(for: Record.ID(recordName: index % 4 == 0 ? "doomed-\(index)" : "ok-\(index)")) }
            #expect(found == (index % 4 == 0 ? .unknownItem : nil), "record \(index)")
        }
    }
}

private extension Record {
    /// The same fields under another record name.
    func withName(_ name: String) -> Record {
        let copy = Record(recordType: recordType, recordID: Record.ID(recordName: name))
        for key in allKeys() { copy[key] = self[key] }
        return copy
    }
}
