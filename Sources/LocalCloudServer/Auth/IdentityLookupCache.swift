import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Rows the authenticator found by digest, kept while the identity file is unchanged, so a request
/// costs two `stat` calls instead of a database read.
///
/// Every commit, from this process or the console, changes the WAL-index header in `-shm` (its
/// change counter and last frame), and the header changes exactly when the commit becomes visible
/// to readers. The stamp, taken before the row is read, holds that header with the sizes and
/// modification times of the file and its WAL: a commit that lands meanwhile makes the entry stale
/// at once. (Sizes and times alone were not enough: a commit's WAL writes come before its header
/// update, so a read between them saw the old row under the new file times, and a revocation by
/// the console went unseen while the entry lived.) An entry also lasts at most `maximumAge`.
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

    /// The file state of a SQLite database in WAL mode: size and mtime of the file and its WAL,
    /// and the WAL-index header (the first 48 bytes of `-shm`, which SQLite updates through its
    /// mapping as each commit is published: read from the page cache, it is never behind).
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
        let shm = open(url.path + "-shm", O_RDONLY | O_CLOEXEC)
        if shm >= 0 {
            defer { close(shm) }
            var header = [UInt8](repeating: 0, count: walIndexHeaderSize)
            guard pread(shm, &header, walIndexHeaderSize, 0) == walIndexHeaderSize else { return nil }
            parts += header.map(Int.init)
        } else if errno != ENOENT {
            return nil
        }
        return Stamp(file: parts)
    }

    /// SQLite's `WalIndexHdr`: version, change counter, page size, last valid frame, checksums.
    static var walIndexHeaderSize: Int { 48 }

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
