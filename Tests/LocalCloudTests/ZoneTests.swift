import Foundation
import Testing
@testable import LocalCloud

@Suite struct ZoneTests {
    @Test func customZonesInThePrivateDatabase() async throws {
        let cloud = TestCloud()
        let db = cloud.container().privateCloudDatabase
        let zone = try await db.save(RecordZone(zoneName: "Favourites"))
        #expect(try await db.recordZone(for: zone.zoneID).zoneID.zoneName == "Favourites")
        #expect(try await db.allRecordZones().map(\.zoneID.zoneName) == ["Favourites", "_defaultZone"])
        let record = Record(recordType: "Restaurant", zoneID: zone.zoneID)
        record["name"] = "in zone"
        _ = try await db.save(record)
        #expect(try await db.record(for: record.recordID)["name"] as? String == "in zone")

        try await db.deleteRecordZone(withID: zone.zoneID)
        await #expect { try await db.recordZone(for: zone.zoneID) } throws: {
            ($0 as? CloudError)?.code == .zoneNotFound && ($0 as? CloudError)?.code.rawValue == 26
        }
        await #expect { try await db.record(for: record.recordID) } throws: { ($0 as? CloudError)?.code == .unknownItem }
        await #expect { try await db.save(record) } throws: { ($0 as? CloudError)?.code == .zoneNotFound }
        await #expect(try cloud.container().core.sqliteStore().invariantViolations() == [])
    }

    @Test func theDefaultZoneExistsEverywhereAndCannotBeDeleted() async throws {
        let cloud = TestCloud()
        let container = cloud.container()
        for db in [container.publicCloudDatabase, container.privateCloudDatabase] {
            #expect(try await db.recordZone(for: .default).zoneID == .default)
        }
        await #expect { try await container.privateCloudDatabase.deleteRecordZone(withID: .default) } throws: {
            ($0 as? CloudError)?.code == .invalidArguments
        }
    }

    @Test func publicDatabaseRefusesCustomZones() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        await #expect { try await db.save(RecordZone(zoneName: "Nope")) } throws: {
            guard let error = $0 as? CloudError else { return false }
            return error.code == .invalidArguments && error.message.contains("private database")
        }
        let record = Record(recordType: "Restaurant", zoneID: RecordZone.ID(zoneName: "Nope"))
        await #expect { try await db.save(record) } throws: { ($0 as? CloudError)?.code == .zoneNotFound }
        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        await #expect { try await db.records(matching: query, inZoneWith: RecordZone.ID(zoneName: "Nope")) } throws: {
            ($0 as? CloudError)?.code == .zoneNotFound
        }
    }
}
