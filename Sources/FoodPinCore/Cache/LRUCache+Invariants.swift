extension LRUCache {
    /// Checks that the map and the list agree, that costs add up and that the limits hold.
    ///
    /// Tests call this after every kind of mutation, and after concurrent hammering.
    /// - Throws: ``InvariantViolation`` naming the first broken invariant.
    func checkInvariants() throws {
        try storage.withLock { try $0.checkInvariants() }
    }
}

extension LRUCache.Storage {
    func checkInvariants() throws {
        func fail(_ message: String) -> InvariantViolation { InvariantViolation(description: message) }
        var visited = Set<Int>()
        var cost = 0
        var previous = Self.none
        var index = head
        while index != Self.none {
            guard visited.insert(index).inserted else { throw fail("cycle at node \(index)") }
            guard index < nodes.count, let node = nodes[index] else { throw fail("list reaches free node \(index)") }
            guard node.previous == previous else { throw fail("node \(index) has previous \(node.previous), expected \(previous)") }
            guard map[node.key] == index else { throw fail("map does not point at node \(index)") }
            cost += node.cost
            previous = index
            index = node.next
        }
        guard previous == tail else { throw fail("tail is \(tail), list ends at \(previous)") }
        guard visited.count == map.count else { throw fail("list has \(visited.count) nodes, map has \(map.count)") }
        guard visited.count + free.count == nodes.count else { throw fail("nodes leak: \(visited.count) used + \(free.count) free != \(nodes.count)") }
        guard free.allSatisfy({ nodes[$0] == nil }) else { throw fail("a free slot holds a node") }
        guard cost == totalCost else { throw fail("cost sum \(cost) != totalCost \(totalCost)") }
        if countLimit > 0, map.count > countLimit { throw fail("count \(map.count) over limit \(countLimit)") }
        if totalCostLimit > 0, totalCost > totalCostLimit { throw fail("cost \(totalCost) over limit \(totalCostLimit)") }
    }
}
