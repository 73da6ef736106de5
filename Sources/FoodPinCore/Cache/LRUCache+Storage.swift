extension LRUCache {
    /// The cache's state, only ever touched under the mutex.
    struct Storage {
        struct Node {
            var key: Key
            var value: Value
            var cost: Int
            var previous: Int // toward the most recently used end; -1 at the head
            var next: Int // toward the least recently used end; -1 at the tail
        }

        static var none: Int { -1 }

        var countLimit: Int
        var totalCostLimit: Int
        var map: [Key: Int] = [:]
        /// Nodes by index; `nil` slots are free and listed in `free`.
        var nodes: [Node?] = []
        var free: [Int] = []
        var head = Storage.none
        var tail = Storage.none
        var totalCost = 0
        var statistics = Statistics()

        init(countLimit: Int, totalCostLimit: Int) {
            self.countLimit = countLimit
            self.totalCostLimit = totalCostLimit
        }

        mutating func value(forKey key: Key) -> Value? {
            guard let index = map[key], let node = nodes[index] else {
                statistics.misses += 1
                return nil
            }
            statistics.hits += 1
            moveToFront(index)
            return node.value
        }

        mutating func setValue(_ value: Value, forKey key: Key, cost: Int) {
            if let index = map[key], var node = nodes[index] {
                totalCost += cost - node.cost
                node.value = value
                node.cost = cost
                nodes[index] = node
                moveToFront(index)
            } else {
                let node = Node(key: key, value: value, cost: cost, previous: Self.none, next: head)
                let index: Int
                if let reused = free.popLast() {
                    index = reused
                    nodes[index] = node
                } else {
                    index = nodes.count
                    nodes.append(node)
                }
                if head != Self.none { nodes[head]?.previous = index }
                head = index
                if tail == Self.none { tail = index }
                map[key] = index
                totalCost += cost
            }
            evictToLimits()
        }

        mutating func removeValue(forKey key: Key) -> Value? {
            guard let index = map[key] else { return nil }
            return remove(at: index)?.value
        }

        mutating func removeAll() {
            map.removeAll()
            nodes.removeAll()
            free.removeAll()
            head = Self.none
            tail = Self.none
            totalCost = 0
        }

        mutating func evictToLimits() {
            while tail != Self.none,
                  (countLimit > 0 && map.count > countLimit) || (totalCostLimit > 0 && totalCost > totalCostLimit) {
                remove(at: tail)
                statistics.evictions += 1
            }
        }

        @discardableResult
        private mutating func remove(at index: Int) -> Node? {
            guard let node = nodes[index] else { return nil }
            unlink(index, node)
            nodes[index] = nil
            free.append(index)
            map[node.key] = nil
            totalCost -= node.cost
            return node
        }

        private mutating func unlink(_ index: Int, _ node: Node) {
            if node.previous != Self.none { nodes[node.previous]?.next = node.next } else { head = node.next }
            if node.next != Self.none { nodes[node.next]?.previous = node.previous } else { tail = node.previous }
        }

        private mutating func moveToFront(_ index: Int) {
            guard index != head, let node = nodes[index] else { return }
            unlink(index, node)
            nodes[index]?.previous = Self.none
            nodes[index]?.next = head
            if head != Self.none { nodes[head]?.previous = index }
            head = index
            if tail == Self.none { tail = index }
        }

        func keysByRecency() -> [Key] {
            var keys: [Key] = []
            var index = head
            while index != Self.none, let node = nodes[index] {
                keys.append(node.key)
                index = node.next
            }
            return keys
        }
    }
}
