import Foundation
import Testing
@testable import LocalCloud

@Suite struct SavePolicyTests {
    /// Saves a restaurant and returns two independent fetched copies of it.
    func twoCopies(_ db: Database) async throws -> (Record, Record) {
        let original = restaurant("Original", type: "Cafe")
        _ = try await db.save(original)
        return (try await db.record(for: original.recordID), try await db.record(for: original.recordID))
    }

    @Test func staleCopyConflictsAndCarriesTheServerRecord() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let (a, b) = try await twoCopies(db)
        a["name"] = "From A"
        let savedA = try await db.save(a)
        b["name"] = "From B"
        do {
            _ = try await db.save(b)
            Issue.record("a stale save must conflict")
        } catch let error as CloudError {
            #expect(error.code == .serverRecordChanged)
            #expect(error.code.rawValue == 14)
            #expect(error.serverRecord?["name"] as? String == "From A")
            #expect(error.serverRecord?.recordChangeTag == savedA.recordChangeTag)
            #expect(error.clientRecord?["name"] as? String == "From B")
            #expect(error.recordID == b.recordID)
        }
        #expect(try await db.record(for: a.recordID)["name"] as? String == "From A")
    }

    @Test func newRecordWithAnExistingNameConflicts() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let first = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "same"))
        first["name"] = "first"
        _ = try await db.save(first)
        let second = Record(recordType: "Restaurant", recordID: Record.ID(recordName: "same"))
        second["name"] = "second"
        await #expect { try await db.save(second) } throws: { ($0 as? CloudError)?.code == .serverRecordChanged }
    }

    @Test func changedKeysMergesOntoTheServerRecord() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let (a, b) = try await twoCopies(db)
        a["name"] = "New name"
        _ = try await db.save(a)
        b["type"] = "Bistro"
        let (saves, _) = try await db.modifyRecords(saving: [b], deleting: [], savePolicy: .changedKeys)
        let merged = try #require(try saves[b.recordID]?.get())
        #expect(merged["name"] as? String == "New name")
        #expect(merged["type"] as? String == "Bistro")
        let server = try await db.record(for: b.recordID)
        #expect(server["name"] as? String == "New name")
        #expect(server["type"] as? String == "Bistro")
    }

    @Test func allKeysOverwritesTheServerRecord() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let (a, b) = try await twoCopies(db)
        a["name"] = "New name"
        a["extra"] = "only on server"
        _ = try await db.save(a)
        b["type"] = "Bistro"
        let (saves, _) = try await db.modifyRecords(saving: [b], deleting: [], savePolicy: .allKeys)
        #expect(throws: Never.self) { try saves[b.recordID]?.get() }
        let server = try await db.record(for: b.recordID)
        #expect(server["name"] as? String == "Original")
        #expect(server["type"] as? String == "Bistro")
        #expect(server["extra"] == nil)
    }

    @Test func savingAPartialRecordKeepsTheFieldsItDidNotFetch() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let original = restaurant("Keep me", type: "Cafe")
        original["phone"] = "123"
        _ = try await db.save(original)
        let partial = try #require(try await db.records(for: [original.recordID], desiredKeys: ["type"])[original.recordID]?.get())
        #expect(partial.allKeys() == ["type"])
        partial["type"] = "Diner"
        _ = try await db.save(partial)
        let server = try await db.record(for: original.recordID)
        #expect(server["name"] as? String == "Keep me")
        #expect(server["phone"] as? String == "123")
        #expect(server["type"] as? String == "Diner")
    }

    @Test func savingAReturnedRecordAgainSucceeds() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        var record = try await db.save(restaurant("v1"))
        for version in 2...4 {
            record["name"] = "v\(version)"
            record = try await db.save(record)
        }
        #expect(try await db.record(for: record.recordID)["name"] as? String == "v4")
    }
}
