import LocalCloud
import Synchronization

/// Token rows the authenticator found by digest, kept while this node hears every revocation.
///
/// Every node NOTIFYs ``PostgresIdentityStore/changesChannel`` after it revokes a credential, and
/// the store LISTENs on it. An entry holds the listener's stamp from before its row was read: the
/// stamp moves with every NOTIFY and every reconnection, and while the listener is not connected
/// it differs on every read, so nothing is served from here then. A revocation by any node thus
/// takes effect as soon as its NOTIFY arrives (milliseconds), without a database read per request.
///
/// Invariant: at most `capacity` entries; only rows that were found are kept (unknown digests are
/// not, so guessing cannot fill it).
final class PostgresCredentialCache<Row: Sendable>: Sendable {
    private struct Entry {
        var stamp: ChangeStamp
        var row: Row
    }

    private let entries = Mutex<[String: Entry]>([:])
    let capacity: Int

    init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    /// The row kept for `key` under `stamp`, if it is still current.
    func row(_ key: String, stamp: ChangeStamp) -> Row? {
        entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard entry.stamp == stamp else {
                entries[key] = nil
                return nil
            }
            return entry.row
        }
    }

    /// Keeps `row`, read after `stamp` was taken.
    func store(_ key: String, stamp: ChangeStamp, row: Row) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = Entry(stamp: stamp, row: row)
        }
    }

    /// Drops every entry (this node revoked something: its own NOTIFY is still on its way).
    func removeAll() {
        entries.withLock { $0.removeAll() }
    }

    /// How many rows are kept, for tests.
    var count: Int { entries.withLock { $0.count } }
}
