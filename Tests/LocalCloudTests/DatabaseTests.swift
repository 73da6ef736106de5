import Foundation
import Testing
@testable import LocalCloud

@Suite struct DatabaseTests {
    @Test func saveFetchDeleteRoundTrip() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let record = restaurant("Cafe Deadend")
        let saved = try await db.save(record)
        #expect(saved.recordChangeTag != nil)
        #expect(saved.creationDate != nil)
        #expect(saved.creatorUserRecordID?.recordName == "_alice")
        #expect(saved.lastModifiedUserRecordID?.recordName == "_alice")
        #expect(saved.changedKeys().isEmpty)

        let fetched = try await db.record(for: record.recordID)
        #expect(fetched["name"] as? String == "Cafe Deadend")
        #expect(fetched.recordChangeTag == saved.recordChangeTag)
        #expect(fetched.creationDate == saved.creationDate)

        let deleted = try await db.deleteRecord(withID: record.recordID)
        #expect(deleted == record.recordID)
        await #expect(throws: CloudError.self) { try await db.record(for: record.recordID) }
        do {
            _ = try await db.record(for: record.recordID)
        } catch let error as CloudError {
            #expect(error.code == .unknownItem)
        }
    }

    @Test func queryPagesNewestFirstWithCursor() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        var names: [String] = []
        for i in 0..<25 {
            let name = "R\(i)"
            names.append(name)
            _ = try await db.save(restaurant(name))
        }
        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
        var seen: [String] = []
        var (matches, cursor) = try await db.records(matching: query, resultsLimit: 10)
        seen += matches.compactMap { try? $0.1.get()["name"] as? String }
        var pages = 1
        while let next = cursor {
            (matches, cursor) = try await db.records(continuingMatchFrom: next, resultsLimit: 10)
            seen += matches.compactMap { try? $0.1.get()["name"] as? String }
            pages += 1
        }
        #expect(pages == 3)
        #expect(seen == names.reversed())
    }
}
