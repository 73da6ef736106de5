import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A value that changes whenever the container's data may have changed: for the embedded store,
/// commits through this process and the database files' sizes and modification times for commits
/// from other processes; for PostgreSQL, this node's commits and the NOTIFYs of every node's
/// commits, kept in memory (a commit through another node moves it when its NOTIFY arrives,
/// milliseconds later; while the node cannot hear NOTIFYs it differs on every read).
///
/// Read it *before* computing something from the data; a result kept with that stamp is still
/// current while the stamp is equal (a commit landing mid-computation makes it differ).
package struct ChangeStamp: Hashable, Sendable {
    var commits: UInt64
    var files: [Int64]

    package init(commits: UInt64, files: [Int64] = []) {
        self.commits = commits
        self.files = files
    }
}

extension Container {
    /// The container's current ``ChangeStamp``; cheap (for SQLite an atomic load and two `stat`s).
    /// Reads the open store at once; a store not yet open is opened first.
    package func changeStamp() async throws -> ChangeStamp {
        if let store = core.openedStore { return try store.changeStamp() }
        return try await core.store().changeStamp()
    }
}

extension SQLiteStore {
    func changeStamp() throws -> ChangeStamp {
        let commits = self.commits.load(ordering: .acquiring)
        var files: [Int64] = []
        for url in [fileURL, URL(fileURLWithPath: fileURL.path + "-wal")] {
            var info = stat()
            if stat(url.path, &info) == 0 {
                files += [Int64(info.st_size), Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec), Int64(info.st_ino)]
            } else {
                files += [-1, 0, 0, 0]
            }
        }
        return ChangeStamp(commits: commits, files: files)
    }
}
