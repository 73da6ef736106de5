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

    private struct Slot {
        var entry: Entry
        /// When it was stored; `order` names it by this, so a replaced or dropped entry's place is skipped.
        var generation: Int
    }

    private struct State {
        var entries: [Key: Slot] = [:]
        /// Oldest first. Places of entries since replaced or dropped stay until they reach the front
        /// (or a compaction), so no store or drop searches it: an array searched and shifted on every
        /// store cost a node answering only new questions a 4,096-key move per page.
        var order = CircularBuffer<(key: Key, generation: Int)>()
        var generation = 0
        var bytes = 0
        /// Hashes of the keys asked recently (a doorkeeper): a question is kept the second time it is
        /// asked, so one-off pages (each "load more", each search keystroke) neither pay
        /// for a copy in the cache nor push the pages asked again and again out of it.
        var seen = Set<Int>()
        var seenOrder = CircularBuffer<Int>()
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
            guard let slot = state.entries[key] else { return nil }
            guard slot.entry.stamp == stamp else {
                Self.drop(key, from: &state)
                // A question asked before: its answer after this commit is kept at once.
                Self.remember(key.hashValue, in: &state, upTo: maximumEntries)
                return nil
            }
            return slot.entry
        }
    }

    /// The entry for `bytes`, kept for `key` if the key was asked before; the oldest entries go when
    /// the cache is over its bounds.
    @discardableResult
    func store(_ key: Key, stamp: ChangeStamp, bytes: [UInt8]) -> Entry {
        let digest = Hex.encode(SHA256Hasher.digest(of: bytes).prefix(16))
        let entry = Entry(stamp: stamp, buffer: ByteBuffer(bytes: bytes), etag: "\"\(digest)\"")
        guard bytes.count + key.body.count < maximumBytes / 8 else { return entry }
        let hash = key.hashValue
        state.withLock { state in
            guard state.entries[key] != nil || state.seen.contains(hash) else {
                Self.remember(hash, in: &state, upTo: maximumEntries)
                return
            }
            Self.drop(key, from: &state)
            state.generation += 1
            state.entries[key] = Slot(entry: entry, generation: state.generation)
            state.order.append((key, state.generation))
            state.bytes += bytes.count + key.body.count
            while state.bytes > maximumBytes || state.entries.count > maximumEntries, let oldest = state.order.popFirst() {
                if state.entries[oldest.key]?.generation == oldest.generation { Self.drop(oldest.key, from: &state) }
            }
            // Places of dropped entries are at most as many as the live ones before they are swept.
            if state.order.count > 2 * max(state.entries.count, 64) {
                state.order = CircularBuffer(state.order.filter { state.entries[$0.key]?.generation == $0.generation })
            }
        }
        return entry
    }

    /// The doorkeeper remembers as many keys as the cache holds; its oldest are forgotten.
    private static func remember(_ hash: Int, in state: inout State, upTo limit: Int) {
        guard state.seen.insert(hash).inserted else { return }
        state.seenOrder.append(hash)
        while state.seenOrder.count > limit { state.seen.remove(state.seenOrder.removeFirst()) }
    }

    private static func drop(_ key: Key, from state: inout State) {
        guard let slot = state.entries.removeValue(forKey: key) else { return }
        state.bytes -= slot.entry.buffer.readableBytes + key.body.count
    }

    /// What the cache holds, for tests: entries, bytes, and places in its eviction order (live or not).
    var counts: (entries: Int, bytes: Int, order: Int) {
        state.withLock { state in
            precondition(state.bytes == state.entries.reduce(0) { $0 + $1.value.entry.buffer.readableBytes + $1.key.body.count })
            precondition(state.entries.allSatisfy { entry in state.order.contains { $0.key == entry.key && $0.generation == entry.value.generation } })
            precondition(state.seen.count == state.seenOrder.count)
            return (state.entries.count, state.bytes, state.order.count)
        }
    }
}
