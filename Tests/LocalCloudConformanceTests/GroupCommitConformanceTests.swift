import Foundation
import Testing
import LocalCloud

/// Concurrent writes that share a transaction (group commit, on the SQLite and PostgreSQL stores)
/// keep their own outcomes, and the change log lists every committed save exactly once.
@Suite(.serialized) struct GroupCommitConformanceTests {
    @Test(arguments: StoreKind.allCases)
    func concurrentModifiesKeepTheirOwnOutcomes(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.container(user: "alice").publicCloudDatabase
            let bob = try await store.container(user: "bob").publicCloudDatabase
            _ = try await alice.save(restaurant("Taken", recordName: "taken"))
            let start = try await alice.recordZoneChanges(inZoneWith: .default, since: nil)
            var token = start.changeToken
            var page = start
            while page.moreComing {
                page = try await alice.recordZoneChanges(inZoneWith: .default, since: token)
                token = page.changeToken
            }
            // Two users at once: every fourth modify is atomic and doomed (a create of a taken
            // name beside a new record), every seventh a single doomed create; the rest land.
            let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                for index in 0..<40 {
                    let db = index % 2 == 0 ? alice : bob
                    group.addTask {
                        if index % 4 == 0 {
                            let (saved, _) = try await db.modifyRecords(
                                saving: [restaurant("Doomed \(index)", recordName: "doomed-\(index)"), restaurant("Again", recordName: "taken")],
                                deleting: [], savePolicy: .ifServerRecordUnchanged, atomically: true)
                            return (index, saved.values.allSatisfy { (try? $0.get()) == nil })
                        }
                        if index % 7 == 0 {
                            let error = await cloudError { _ = try await db.save(restaurant("Again", recordName: "taken")) }
                            return (index, error?.code == .serverRecordChanged)
                        }
                        let saved = try await db.save(restaurant("Saved \(index)", recordName: "saved-\(index)"))
                        return (index, saved.recordChangeTag != nil)
                    }
                }
                var all: [(Int, Bool)] = []
                for try await outcome in group { all.append(outcome) }
                return all
            }
            #expect(outcomes.count == 40)
            #expect(outcomes.filter { !$0.1 }.map(\.0).isEmpty, "modifies with the wrong outcome")
            let landed = Set((0..<40).filter { $0 % 4 != 0 && $0 % 7 != 0 }.map { "saved-\($0)" })
            for index in stride(from: 0, to: 40, by: 4) {
                let error = await cloudError { _ = try await alice.record(for: Record.ID(recordName: "doomed-\(index)")) }
                #expect(error?.code == .unknownItem, "doomed-\(index) was left behind")
            }
            #expect(try await alice.record(for: Record.ID(recordName: "taken"))["name"] as? String == "Taken")
            // The log has each committed save once, and nothing of the refused ones.
            var changed: [String] = []
            repeat {
                page = try await alice.recordZoneChanges(inZoneWith: .default, since: token)
                token = page.changeToken
                changed += page.modificationResultsByID.keys.map(\.recordName)
            } while page.moreComing
            #expect(changed.count == Set(changed).count)
            #expect(Set(changed) == landed)
        }
    }
}
