import Foundation
import Testing
@testable import LocalCloud

/// Garbage collection of asset files: orphans go, referenced and fresh files stay.
@Suite struct ChangeAssetCollectorTests {
    func assetFiles(_ container: Container) -> [URL] {
        let root = container.configuration.assetsDirectory
        let shards = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return shards.filter { $0.count == 2 }.flatMap { shard in
            ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(shard).path)) ?? [])
                .map { root.appendingPathComponent(shard).appendingPathComponent($0) }
        }
    }

    func age(_ url: URL, by seconds: TimeInterval) throws {
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-seconds)], ofItemAtPath: url.path)
    }

    @Test func collectsOldOrphansButNotReferencedOrFreshFiles() async throws {
        let cloud = TestCloud()
        let container = cloud.container()
        let db = container.publicCloudDatabase
        let kept = restaurant("Kept")
        kept["image"] = Asset(fileURL: try cloud.file(named: "kept.bin", bytes: Data("kept image".utf8)))
        _ = try await db.save(kept)
        let gone = restaurant("Gone")
        gone["image"] = Asset(fileURL: try cloud.file(named: "gone.bin", bytes: Data("deleted image".utf8)))
        let goneSaved = try await db.save(gone)
        try await db.deleteRecord(withID: goneSaved.recordID)
        // A crash between the file write and the commit leaves a file nobody references; one is
        // old, and one was written just now by a save that is about to commit (a pending asset).
        let root = container.configuration.assetsDirectory
        let crashDigest = String(repeating: "ab", count: 32), pendingDigest = String(repeating: "cd", count: 32)
        for digest in [crashDigest, pendingDigest] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(String(digest.prefix(2))), withIntermediateDirectories: true)
            try Data("orphan".utf8).write(to: root.appendingPathComponent(String(digest.prefix(2))).appendingPathComponent(digest))
        }
        let partial = root.appendingPathComponent("tmp").appendingPathComponent("crashed.part")
        try FileManager.default.createDirectory(at: partial.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("half".utf8).write(to: partial)
        #expect(assetFiles(container).count == 4)
        for file in assetFiles(container) where !file.lastPathComponent.hasPrefix("cd") { try age(file, by: 3600) }
        try age(partial, by: 3600)

        let report = try await container.collectGarbage(gracePeriod: .seconds(600))
        #expect(report.removedAssets == 2)                 // the deleted record's image and the crash orphan
        #expect(report.removedTemporaryFiles == 1)
        #expect(report.keptRecentAssets == 1)              // the pending one
        #expect(report.scannedAssets == 4)
        let left = Set(assetFiles(container).map(\.lastPathComponent))
        #expect(left.contains(pendingDigest))
        #expect(!left.contains(crashDigest))
        #expect(!FileManager.default.fileExists(atPath: partial.path))
        // The kept record's asset is still readable.
        let fetched = try await db.record(for: kept.recordID)
        let url = try #require((fetched["image"] as? Asset)?.fileURL)
        #expect(try Data(contentsOf: url) == Data("kept image".utf8))
        // Later, past the grace period, the pending file that never got committed goes too.
        for file in assetFiles(container) where file.lastPathComponent == pendingDigest { try age(file, by: 3600) }
        #expect(try await container.collectGarbage().removedAssets == 1)
    }

    @Test func reimportingAnOldOrphanMakesItFreshAgain() async throws {
        let cloud = TestCloud()
        let container = cloud.container()
        let db = container.publicCloudDatabase
        let bytes = Data("same picture".utf8)
        let first = restaurant("First")
        first["image"] = Asset(fileURL: try cloud.file(named: "a.bin", bytes: bytes))
        let saved = try await db.save(first)
        try await db.deleteRecord(withID: saved.recordID)
        for file in assetFiles(container) { try age(file, by: 3600) }
        // A new save of the same content: the import renames a fresh copy into place, so a
        // collection running before its commit sees a young file and keeps it.
        let second = restaurant("Second")
        second["image"] = Asset(fileURL: try cloud.file(named: "b.bin", bytes: bytes))
        _ = try await db.save(second)
        let report = try await container.collectGarbage()
        #expect(report.removedAssets == 0)
        let url = try #require((try await db.record(for: second.recordID)["image"] as? Asset)?.fileURL)
        #expect(try Data(contentsOf: url) == bytes)
    }
}
