import Foundation
import LocalCloud
import NIOCore
import Synchronization

/// Responses to read requests, kept while the container's ``ChangeStamp`` is unchanged.
///
/// A Discover refresh asks the same question again and again; between commits the answer is the
/// same bytes. The stamp is read before the answer is computed, so a commit that lands meanwhile
/// makes the entry stale at once: a stale page is never served.
final class ResponseCache: Sendable {
    struct Key: Hashable, Sendable {
        var container: String
        var environment: Container.Environment
        var scope: Database.Scope
        var user: String?
        var endpoint: String
        var body: [UInt8]
    }

    struct Entry: Sendable {
        var stamp: ChangeStamp
        /// The response body, shared by every answer (a ByteBuffer is copied on write only).
        var buffer: ByteBuffer
        /// A strong validator for `If-None-Match`: the SHA-256 of the bytes, quoted.
        var etag: String
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var order: [Key] = []
        var bytes = 0
    }

    private let state = Mutex(State())
    let maximumBytes: Int
    let maximumEntries: Int

    init(maximumBytes: Int = 64 * 1024 * 1024, maximumEntries: Int = 4096) {
        self.maximumBytes = maximumBytes
        self.maximumEntries = maximumEntries
    }

    func entry(_ key: Key, stamp: ChangeStamp) -> Entry? {
        state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            guard entry.stamp == stamp else {
                state.entries[key] = nil
                state.bytes -= entry.buffer.readableBytes + key.body.count
                state.order.removeAll { $0 == key }
                return nil
            }
            return entry
        }
    }

    /// Keeps `bytes` for `key`; the oldest entries go when the cache is over its bounds.
    @discardableResult
    func store(_ key: Key, stamp: ChangeStamp, bytes: [UInt8]) -> Entry {
        let digest = Hex.encode(SHA256Hasher.digest(of: bytes).prefix(16))
        let entry = Entry(stamp: stamp, buffer: ByteBuffer(bytes: bytes), etag: "\"\(digest)\"")
        guard bytes.count + key.body.count < maximumBytes / 8 else { return entry }
        state.withLock { state in
            if let old = state.entries.updateValue(entry, forKey: key) {
                state.bytes -= old.buffer.readableBytes + key.body.count
                state.order.removeAll { $0 == key }
            }
            state.order.append(key)
            state.bytes += bytes.count + key.body.count
            while state.bytes > maximumBytes || state.order.count > maximumEntries, !state.order.isEmpty {
                let oldest = state.order.removeFirst()
                if let removed = state.entries.removeValue(forKey: oldest) {
                    state.bytes -= removed.buffer.readableBytes + oldest.body.count
                }
            }
        }
        return entry
    }
}
