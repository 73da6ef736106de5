import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Rows the authenticator found by digest, kept while the identity file is unchanged, so a request
/// costs two `stat` calls instead of a database read.
///
/// Every commit, from this process or the console, changes the size or modification time of
/// `identity.sqlite` or its WAL. The stamp is taken before the row is read, so a commit that lands
/// meanwhile makes the entry stale at once. Modification times are as coarse as the kernel's tick:
/// two commits in one tick that leave the WAL's size unchanged could go unseen, so an entry also
/// lasts at most `maximumAge`, which bounds how late a revocation can take effect in that case.
///
/// Only `stat`: never open one of the database's files here. POSIX locks belong to the process,
/// and closing any descriptor of a file drops all of them, SQLite's among them; another process
/// then takes the `-shm` for unused and truncates it under this one's mapping (SIGBUS: a CI run
/// crashed so, when this stamp read the WAL-index header with `open`/`pread`/`close`).
///
/// Invariant: at most `capacity` entries; only rows that were found are kept (unknown digests are
/// not, so guessing cannot fill the cache).
final class IdentityLookupCache<Row: Sendable>: Sendable {
    struct Stamp: Hashable, Sendable {
        var file: [Int]
    }

    private struct Entry {
        var stamp: Stamp
        var row: Row
        var at: ContinuousClock.Instant
    }

    private let entries = Mutex<[String: Entry]>([:])
    let capacity: Int
    let maximumAge: Duration

    init(capacity: Int = 4096, maximumAge: Duration = .seconds(1)) {
        self.capacity = capacity
        self.maximumAge = maximumAge
    }

    /// The file state of a SQLite database in WAL mode: size and mtime of the file and its WAL.
    static func stamp(_ url: URL) -> Stamp? {
        var parts: [Int] = []
        for path in [url.path, url.path + "-wal"] {
            var info = stat()
            guard stat(path, &info) == 0 else {
                if errno == ENOENT && path.hasSuffix("-wal") { parts += [-1, -1, -1]; continue }
                return nil
            }
            parts += [Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec)]
        }
        return Stamp(file: parts)
    }

    /// The cached row for `key` when the file is as it was when the row was read.
    func row(_ key: String, stamp: Stamp) -> Row? {
        entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard entry.stamp == stamp, ContinuousClock.now - entry.at < maximumAge else {
                entries[key] = nil
                return nil
            }
            return entry.row
        }
    }

    func store(_ key: String, stamp: Stamp, row: Row) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = Entry(stamp: stamp, row: row, at: .now)
        }
    }

    /// The invariant, for tests.
    var count: Int { entries.withLock { $0.count } }
}
