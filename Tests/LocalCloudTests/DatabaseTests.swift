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

    @Test func everyValueTypeRoundTripsWithAndWithoutDesiredKeys() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let record = Record(recordType: "Thing")
        record["s"] = "text \"quoted\" ünïcode 😀"
        record["i"] = Int64.max
        record["d"] = -2.5e-7
        record["whole"] = 3.0
        record["b"] = false
        record["t"] = Date(timeIntervalSince1970: 1_732_240_000.123_456)
        record["bytes"] = Data([0, 255, 7])
        record["loc"] = Location(latitude: 22.3, longitude: 114.2, altitude: 10)
        record["flat"] = Location(latitude: -1, longitude: 2)
        record["ref"] = Record.Reference(recordID: Record.ID(recordName: "target"), action: .deleteSelf)
        record["tags"] = ["a", "b,c"]
        record["nums"] = [1.5, 2]
        record["when"] = [Date(timeIntervalSince1970: 5)]
        record["refs"] = [Record.Reference(recordID: Record.ID(recordName: "x"), action: .none)]
        record["places"] = [Location(latitude: 1, longitude: 2, altitude: 3)]
        record["empty"] = [String]()
        record["image"] = Asset(fileURL: try cloud.file(named: "i.bin", bytes: Data("img".utf8)))
        _ = try await db.save(record)

        let full = try await db.record(for: record.recordID)
        let keys = record.allKeys()
        let partial = try #require(try await db.records(for: [record.recordID], desiredKeys: keys)[record.recordID]?.get())
        let queried = try #require(try await db.records(matching: Query(recordType: "Thing", predicate: Predicate(value: true)),
                                                        desiredKeys: keys).matchResults.first?.1.get())
        #expect(full.allKeys() == keys)
        for key in keys where key != "image" {
            #expect(full.fieldValues[key] == record.fieldValues[key], "\(key)")
            #expect(partial.fieldValues[key] == record.fieldValues[key], "\(key)")
            #expect(queried.fieldValues[key] == record.fieldValues[key], "\(key)")
        }
        for copy in [full, partial, queried] {
            let url = try #require((copy["image"] as? Asset)?.fileURL)
            #expect(try Data(contentsOf: url) == Data("img".utf8))
        }
    }
}
