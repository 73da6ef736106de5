import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock` on a file, held while a body runs: the guard for work two processes must
/// not do at once (migrating a new database file).
package enum FileLock {
    /// Holds the lock on `url` (created with `mode` if missing) while `body` runs.
    /// - Throws: `badDatabase` when the file cannot be opened or locked.
    package static func withExclusiveLock<T>(_ url: URL, mode: mode_t = 0o644, _ body: () throws -> T) throws -> T {
        let fd = Glibc.open(url.path, O_RDWR | O_CREAT, mode)
        guard fd >= 0 else { throw CloudError(.badDatabase, "Cannot open lock file \(url.path)") }
        defer { Glibc.close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw CloudError(.badDatabase, "Cannot lock \(url.path)") }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}
