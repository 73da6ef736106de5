import Synchronization

/// A thread-safe least-recently-used cache in the manner of `NSCache`.
///
/// ```swift
/// let cache = LRUCache<String, Thumbnail>(countLimit: 500, totalCostLimit: 32 << 20)
/// cache.setValue(thumbnail, forKey: id, cost: thumbnail.cost)
/// cache.value(forKey: id)   // a hit, and now the most recently used entry
/// ```
///
/// Entries live in an array of nodes linked into a doubly linked list by index (most recent
/// first), with a dictionary from key to node index, so lookups, inserts and evictions are O(1)
/// and freed nodes are reused. A limit of 0 means no limit, as in `NSCache`.
///
/// - Complexity: O(1) for ``value(forKey:)``, ``setValue(_:forKey:cost:)`` and ``removeValue(forKey:)``,
///   amortized over the evictions an insert causes.
package final class LRUCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Hit, miss and eviction counts since creation (for `foodpin --debug`).
    package struct Statistics: Hashable, Sendable {
        package var hits = 0
        package var misses = 0
        package var evictions = 0
    }

    let storage: Mutex<Storage>

    /// - Parameters:
    ///   - countLimit: the most entries to hold; 0 for no limit.
    ///   - totalCostLimit: the most total cost to hold; 0 for no limit.
    package init(countLimit: Int = 0, totalCostLimit: Int = 0) {
        storage = Mutex(Storage(countLimit: max(0, countLimit), totalCostLimit: max(0, totalCostLimit)))
    }

    /// Returns the value and marks it most recently used; counts a hit or a miss.
    package func value(forKey key: Key) -> Value? {
        storage.withLock { $0.value(forKey: key) }
    }

    /// Inserts or replaces a value, then evicts least recently used entries until both limits hold.
    package func setValue(_ value: Value, forKey key: Key, cost: Int = 0) {
        storage.withLock { $0.setValue(value, forKey: key, cost: max(0, cost)) }
    }

    @discardableResult
    package func removeValue(forKey key: Key) -> Value? {
        storage.withLock { $0.removeValue(forKey: key) }
    }

    package func removeAll() {
        storage.withLock { $0.removeAll() }
    }

    /// Whether the key is cached, without counting a hit or changing recency.
    package func contains(_ key: Key) -> Bool {
        storage.withLock { $0.map[key] != nil }
    }

    package var count: Int { storage.withLock { $0.map.count } }
    package var totalCost: Int { storage.withLock { $0.totalCost } }
    package var statistics: Statistics { storage.withLock { $0.statistics } }

    package var countLimit: Int {
        get { storage.withLock { $0.countLimit } }
        set { storage.withLock { $0.countLimit = max(0, newValue); $0.evictToLimits() } }
    }

    package var totalCostLimit: Int {
        get { storage.withLock { $0.totalCostLimit } }
        set { storage.withLock { $0.totalCostLimit = max(0, newValue); $0.evictToLimits() } }
    }

    /// Keys from most to least recently used (for tests and debugging).
    package var keysByRecency: [Key] { storage.withLock { $0.keysByRecency() } }
}
