import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#endif

/// Removes asset files no record refers to, such as those left by a crash between the file write and the commit.
///
/// A save copies its asset into place (always a fresh rename, so the file's modification time
/// is the import time) before the transaction that references it. So a file that is
/// unreferenced *and* older than the grace period belongs to no save in flight. To close the race
/// with a save that re-imports the same content, each candidate is first renamed aside, then its
/// age and references are checked again; if either changed it is put back.
struct AssetCollector {
    let store: SQLiteStore
    let gracePeriod: TimeInterval

    /// The default grace: far longer than any save takes between copying a file and committing.
    static let defaultGracePeriod: TimeInterval = 600

    /// - Parameter now: compared with files' modification times, which the file system stamps with the
    ///   system's clock; so the system's time, not the store's injected ``WallClock`` (tests pass a later one).
    func collect(now: Date = Date()) async throws -> GarbageCollectionReport {
        var report = GarbageCollectionReport()
        let fm = FileManager.default
        let root = store.assetsDirectory
        let tempDirectory = root.appendingPathComponent("tmp", isDirectory: true)
        let cutoff = now.timeIntervalSince1970 - gracePeriod

        // Temporary files: partial copies and earlier collections' leftovers.
        for name in (try? fm.contentsOfDirectory(atPath: tempDirectory.path)) ?? [] {
            let url = tempDirectory.appendingPathComponent(name)
            guard let (mtime, size) = Self.fileInfo(url), mtime < cutoff else { continue }
            if unlink(url.path) == 0 {
                report.removedTemporaryFiles += 1
                report.bytesFreed += size
            }
        }

        for shard in (try? fm.contentsOfDirectory(atPath: root.path)) ?? [] where shard.utf8.count == 2 {
            let shardURL = root.appendingPathComponent(shard, isDirectory: true)
            for digest in (try? fm.contentsOfDirectory(atPath: shardURL.path)) ?? [] where digest.hasPrefix(shard) {
                report.scannedAssets += 1
                let url = shardURL.appendingPathComponent(digest)
                guard let (mtime, size) = Self.fileInfo(url) else { continue }
                guard try await !isReferenced(digest) else { continue }
                guard mtime < cutoff else {
                    report.keptRecentAssets += 1
                    continue
                }
                try? fm.createDirectory(at: tempDirectory, withIntermediateDirectories: true)
                let aside = tempDirectory.appendingPathComponent("gc-\(digest)-\(UUID().uuidString)")
                guard rename(url.path, aside.path) == 0 else { continue }
                // Re-check after the move: a save that re-imported this content either renamed a
                // fresh copy over it before the move (the moved file is young) or will rename a
                // fresh one into place after it (no harm). A commit since the first check keeps it.
                let stillOld = (Self.fileInfo(aside)?.mtime ?? now.timeIntervalSince1970) < cutoff
                if stillOld, try await !isReferenced(digest) {
                    unlink(aside.path)
                    report.removedAssets += 1
                    report.bytesFreed += size
                } else {
                    if fm.fileExists(atPath: url.path) {
                        unlink(aside.path)
                    } else if rename(aside.path, url.path) != 0 {
                        throw CloudError(.internalError, "Cannot put asset \(digest) back after garbage collection")
                    }
                    report.keptRecentAssets += 1
                }
            }
        }
        return report
    }

    private func isReferenced(_ digest: String) async throws -> Bool {
        try await store.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM record_assets WHERE digest = ? LIMIT 1", arguments: [digest]) ?? false
        }
    }

    private static func fileInfo(_ url: URL) -> (mtime: Double, size: Int64)? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
              let date = attributes[.modificationDate] as? Date else { return nil }
        return (date.timeIntervalSince1970, (attributes[.size] as? NSNumber)?.int64Value ?? 0)
    }
}

extension SQLiteStore {
    func collectGarbage(gracePeriod: TimeInterval) async throws -> GarbageCollectionReport {
        try await AssetCollector(store: self, gracePeriod: gracePeriod).collect()
    }

    /// Collects orphaned assets in the background after the store opens, so startup does not wait.
    func collectGarbageInBackground() {
        Task.detached(priority: .background) { [self] in
            _ = try? await AssetCollector(store: self, gracePeriod: AssetCollector.defaultGracePeriod).collect()
        }
    }
}

extension Container {
    /// Removes asset files no record refers to and temporary files left by interrupted saves.
    ///
    /// Runs at startup too (in the background, when a process first opens the store). Files
    /// younger than `gracePeriod` are kept even when unreferenced: a concurrent save may be about
    /// to commit a record pointing at them. `localcloud gc` calls this.
    @discardableResult
    public func collectGarbage(gracePeriod: Duration = .seconds(600)) async throws -> GarbageCollectionReport {
        let seconds = Double(gracePeriod.components.seconds) + Double(gracePeriod.components.attoseconds) / 1e18
        return try await publicCloudDatabase.perform { db in
            try await db.core.store().collectGarbage(gracePeriod: seconds)
        }
    }
}
