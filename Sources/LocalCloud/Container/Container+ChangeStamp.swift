import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A value that changes whenever the container's data may have changed: commits through this
/// process, and the database files' sizes and modification times for commits from other processes.
///
/// Read it *before* computing something from the data; a result kept with that stamp is still
/// current while the stamp is equal (a commit landing mid-computation makes it differ).
package struct ChangeStamp: Hashable, Sendable {
    var commits: UInt64
    var files: [Int64]
}

extension Container {
    /// The container's current ``ChangeStamp``; cheap (an atomic load and two `stat`s).
    package func changeStamp() throws -> ChangeStamp {
        let store = try core.store()
        let commits = store.commits.load(ordering: .acquiring)
        var files: [Int64] = []
        for url in [store.fileURL, URL(fileURLWithPath: store.fileURL.path + "-wal")] {
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
