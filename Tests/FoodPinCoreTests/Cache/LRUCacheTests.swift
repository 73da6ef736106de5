import Testing
@testable import FoodPinCore

@Suite struct LRUCacheTests {
    @Test func evictsTheLeastRecentlyUsed() throws {
        let cache = LRUCache<String, Int>(countLimit: 3)
        cache.setValue(1, forKey: "a")
        cache.setValue(2, forKey: "b")
        cache.setValue(3, forKey: "c")
        #expect(cache.value(forKey: "a") == 1) // a is now the most recent
        cache.setValue(4, forKey: "d") // evicts b
        #expect(cache.keysByRecency == ["d", "a", "c"])
        #expect(cache.value(forKey: "b") == nil)
        cache.setValue(5, forKey: "e") // evicts c
        #expect(cache.keysByRecency == ["e", "d", "a"])
        #expect(cache.statistics == .init(hits: 1, misses: 1, evictions: 2))
        try cache.checkInvariants()
    }

    @Test func costLimitEvictsUntilItFits() throws {
        let cache = LRUCache<String, String>(totalCostLimit: 100)
        cache.setValue("a", forKey: "a", cost: 40)
        cache.setValue("b", forKey: "b", cost: 40)
        cache.setValue("c", forKey: "c", cost: 40) // 120 > 100: a goes
        #expect(cache.keysByRecency == ["c", "b"])
        #expect(cache.totalCost == 80)
        cache.setValue("big", forKey: "big", cost: 90) // needs both b and c gone
        #expect(cache.keysByRecency == ["big"])
        cache.setValue("huge", forKey: "huge", cost: 500) // larger than the limit: cannot stay
        #expect(cache.count == 0)
        #expect(cache.totalCost == 0)
        #expect(cache.statistics.evictions == 5)
        try cache.checkInvariants()
    }

    @Test func bothLimitsHoldTogether() throws {
        let cache = LRUCache<Int, Int>(countLimit: 5, totalCostLimit: 50)
        for i in 0..<20 {
            cache.setValue(i, forKey: i, cost: i % 3 == 0 ? 20 : 5)
            try cache.checkInvariants()
            #expect(cache.count <= 5)
            #expect(cache.totalCost <= 50)
        }
        cache.countLimit = 2
        #expect(cache.count == 2)
        cache.totalCostLimit = 5
        #expect(cache.totalCost <= 5)
        try cache.checkInvariants()
    }

    @Test func replacingAValueUpdatesCostAndRecency() throws {
        let cache = LRUCache<String, Int>(countLimit: 2, totalCostLimit: 100)
        cache.setValue(1, forKey: "a", cost: 10)
        cache.setValue(2, forKey: "b", cost: 10)
        cache.setValue(3, forKey: "a", cost: 30)
        #expect(cache.keysByRecency == ["a", "b"])
        #expect(cache.totalCost == 40)
        #expect(cache.removeValue(forKey: "b") == 2)
        #expect(cache.totalCost == 30)
        #expect(!cache.contains("b"))
        try cache.checkInvariants()
        cache.removeAll()
        #expect(cache.count == 0)
        try cache.checkInvariants()
    }

    /// Random operations against a simple model: same contents, same order, invariants hold.
    @Test func matchesAReferenceModel() throws {
        let cache = LRUCache<Int, Int>(countLimit: 8, totalCostLimit: 60)
        var model: [(key: Int, value: Int, cost: Int)] = [] // most recent first
        var generator = SplitMix64(seed: 42)
        for step in 0..<5_000 {
            let key = Int(generator.next() % 16)
            switch generator.next() % 4 {
            case 0, 1:
                let cost = Int(generator.next() % 15)
                cache.setValue(step, forKey: key, cost: cost)
                model.removeAll { $0.key == key }
                model.insert((key, step, cost), at: 0)
                while model.count > 8 || model.reduce(0, { $0 + $1.cost }) > 60 { model.removeLast() }
            case 2:
                let expected = model.firstIndex { $0.key == key }
                #expect(cache.value(forKey: key) == expected.map { model[$0].value })
                if let expected { model.insert(model.remove(at: expected), at: 0) }
            default:
                cache.removeValue(forKey: key)
                model.removeAll { $0.key == key }
            }
            #expect(cache.keysByRecency == model.map(\.key))
            if step % 50 == 0 { try cache.checkInvariants() }
        }
        try cache.checkInvariants()
    }

    @Test func manyTasksHammeringKeepTheInvariants() async throws {
        let cache = LRUCache<Int, Int>(countLimit: 64, totalCostLimit: 2_000)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<16 {
                group.addTask {
                    var generator = SplitMix64(seed: UInt64(worker))
                    for _ in 0..<5_000 {
                        let key = Int(generator.next() % 200)
                        switch generator.next() % 3 {
                        case 0: cache.setValue(key, forKey: key, cost: Int(generator.next() % 50))
                        case 1: _ = cache.value(forKey: key)
                        default: cache.removeValue(forKey: key)
                        }
                    }
                }
            }
        }
        try cache.checkInvariants()
        let stats = cache.statistics
        #expect(stats.hits + stats.misses > 0)
        #expect(stats.evictions > 0)
        #expect(cache.count <= 64)
        #expect(cache.totalCost <= 2_000)
    }

    @Test func theInvariantCheckCatchesCorruption() {
        let cache = LRUCache<String, Int>(countLimit: 4)
        cache.setValue(1, forKey: "a", cost: 3)
        cache.setValue(2, forKey: "b", cost: 3)
        cache.storage.withLock { $0.totalCost = 99 }
        #expect(throws: InvariantViolation.self) { try cache.checkInvariants() }
        cache.storage.withLock { $0.totalCost = 6; $0.map["a"] = nil }
        #expect(throws: InvariantViolation.self) { try cache.checkInvariants() }
    }
}

/// A small deterministic generator so failures reproduce.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
