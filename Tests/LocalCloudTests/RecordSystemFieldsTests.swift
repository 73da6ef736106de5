import Foundation
import Testing
@testable import LocalCloud

/// `encodedSystemFields()` and `init(systemFields:)`: a record recreated from its system fields
/// saves against the version it was read at.
@Suite struct RecordSystemFieldsTests {
    @Test func aRecreatedRecordSavesInPlaceAndAStaleOneConflicts() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lc-sysfields-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let container = Container(configuration: .init(dataDirectory: directory, user: "alice"))
        let database = container.publicCloudDatabase
        let record = Record(recordType: "Note")
        record["title"] = "first"
        let saved = try await database.save(record)
        let bytes = saved.encodedSystemFields()

        let again = try Record(systemFields: bytes)
        #expect(again.recordID == saved.recordID)
        #expect(again.recordType == "Note")
        #expect(again.recordChangeTag == saved.recordChangeTag)
        #expect(again.creationDate == saved.creationDate)
        #expect(again.creatorUserRecordID == saved.creatorUserRecordID)
        #expect(again.allKeys().isEmpty, "system fields only")
        again["title"] = "second"
        let updated = try await database.save(again)
        #expect(updated.creationDate == saved.creationDate)
        #expect(try await database.record(for: saved.recordID)["title"] as? String == "second")

        let stale = try Record(systemFields: bytes)
        stale["title"] = "third"
        do {
            _ = try await database.save(stale)
            Issue.record("a save against an older version went through")
        } catch let error as CloudError {
            #expect(error.code == .serverRecordChanged)
            #expect(error.serverRecord?["title"] as? String == "second")
        }
        #expect(throws: CloudError.self) { _ = try Record(systemFields: Data("not json".utf8)) }
    }
}
