import Foundation
import GRDB
import Testing
@testable import LocalCloud

@Suite struct AssetTests {
    @Test func savedAssetIsCopiedSoTheCallerMayDeleteItsFile() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let bytes = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let source = try cloud.file(named: "photo.jpg", bytes: bytes)
        let record = restaurant("with image")
        record["image"] = Asset(fileURL: source)
        let saved = try await db.save(record)
        try FileManager.default.removeItem(at: source)

        let savedURL = try #require((saved["image"] as? Asset)?.fileURL)
        #expect(try Data(contentsOf: savedURL) == bytes)
        let fetched = try await db.record(for: record.recordID)
        let url = try #require((fetched["image"] as? Asset)?.fileURL)
        #expect(try Data(contentsOf: url) == bytes)
        #expect(url.path.hasPrefix(cloud.directory.path))
        // Content-addressed: the file is named by its SHA-256.
        #expect(url.lastPathComponent == SHA256Hasher.hexDigest(of: bytes))
    }

    /// A sample photo keeps the name the hand-written SHA-256 gave it (and `sha256sum` agrees),
    /// so stores written before swift-crypto still find their asset files.
    @Test func anExistingAssetKeepsItsName() async throws {
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Assets/Restaurants/addis-injera.jpg")
        let cloud = TestCloud()
        let record = restaurant("sample photo")
        record["image"] = Asset(fileURL: sample)
        let saved = try await cloud.container().publicCloudDatabase.save(record)
        let url = try #require((saved["image"] as? Asset)?.fileURL)
        #expect(url.lastPathComponent == "ab21f4d4c612c39d9be597df9e30db272e0471dfca218ea0d2b14bcd88c8cfaf")
        #expect(url.deletingLastPathComponent().lastPathComponent == "ab")
    }

    @Test func missingSourceFileIsAssetFileNotFound() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let record = restaurant("no file")
        record["image"] = Asset(fileURL: cloud.directory.appendingPathComponent("does-not-exist.jpg"))
        await #expect { try await db.save(record) } throws: {
            ($0 as? CloudError)?.code == .assetFileNotFound && ($0 as? CloudError)?.code.rawValue == 16
        }
    }

    @Test func assetsOverTheSizeCapAreLimitExceeded() async throws {
        let cloud = TestCloud()
        let db = cloud.container(assetSizeLimit: 1_000).publicCloudDatabase
        let record = restaurant("huge")
        record["image"] = Asset(fileURL: try cloud.file(named: "big.bin", bytes: Data(count: 1_001)))
        await #expect { try await db.save(record) } throws: { ($0 as? CloudError)?.code == .limitExceeded }
        record["image"] = Asset(fileURL: try cloud.file(named: "ok.bin", bytes: Data(count: 1_000)))
        _ = try await db.save(record)
    }

    @Test func desiredKeysLeaveAssetsOutUnlessAsked() async throws {
        let cloud = TestCloud()
        let db = cloud.container().publicCloudDatabase
        let record = restaurant("lazy")
        record["image"] = Asset(fileURL: try cloud.file(named: "img.bin", bytes: Data("pixels".utf8)))
        _ = try await db.save(record)

        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        let listed = try #require(try await db.records(matching: query, desiredKeys: ["name", "type"]).matchResults.first?.1.get())
        #expect(listed.allKeys() == ["name", "type"])
        #expect(listed["image"] == nil)

        let operation = FetchRecordsOperation(recordIDs: [record.recordID])
        operation.desiredKeys = ["image"]
        let images = Collected<Record>()
        operation.perRecordResultBlock = { _, result in if let record = try? result.get() { images.append(record) } }
        db.add(operation)
        #expect(await poll { images.count == 1 })
        let imageOnly = try #require(images.values.first)
        #expect(imageOnly.allKeys() == ["image"])
        let url = try #require((imageOnly["image"] as? Asset)?.fileURL)
        #expect(try Data(contentsOf: url) == Data("pixels".utf8))

        let none = try #require(try await db.records(for: [record.recordID], desiredKeys: [])[record.recordID]?.get())
        #expect(none.allKeys().isEmpty)
        #expect(none.creationDate != nil)
    }

    @Test func listsOfAssetsAreStoredAndTracked() async throws {
        let cloud = TestCloud()
        let container = cloud.container()
        let db = container.publicCloudDatabase
        let record = restaurant("gallery")
        record["photos"] = [Asset(fileURL: try cloud.file(named: "a", bytes: Data("a".utf8))),
                            Asset(fileURL: try cloud.file(named: "b", bytes: Data("b".utf8)))]
        _ = try await db.save(record)
        let fetched = try await db.record(for: record.recordID)
        let photos = try #require(fetched["photos"] as? [Asset])
        #expect(try photos.map { try Data(contentsOf: try #require($0.fileURL)) } == [Data("a".utf8), Data("b".utf8)])
        let tracked = try await container.core.sqliteStore().read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM record_assets") }
        #expect(tracked == 2)
        await #expect(try container.core.sqliteStore().invariantViolations() == [])
        // Deleting the record drops its asset rows with it.
        try await db.deleteRecord(withID: record.recordID)
        await #expect(try container.core.sqliteStore().read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM record_assets") } == 0)
    }
}
