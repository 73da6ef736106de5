import Foundation
import Testing
@testable import FoodPinCore

@Suite struct DiscoverListTests {
    @Test func firstPageKeepsOrderAndDropsDuplicates() {
        var list = DiscoverList()
        let items = restaurants(0..<3)
        list.replace(with: page(items + [items[1]], cursor: "c1"))
        #expect(list.items.map(\.id) == ["r0", "r1", "r2"])
        #expect(list.hasMore)
        #expect(list.isLoaded)
    }

    @Test func appendingSkipsRowsAlreadyShown() {
        var list = DiscoverList()
        list.replace(with: page(restaurants(0..<3), cursor: "c1"))
        list.append(page(restaurants(2..<5), cursor: nil))
        #expect(list.items.map(\.id) == ["r0", "r1", "r2", "r3", "r4"])
        #expect(!list.hasMore)
    }

    @Test func refreshMergesNewRemovesDeletedKeepsOlderPagesAndCursor() {
        var list = DiscoverList()
        list.replace(with: page(restaurants(0..<4), cursor: "c1"))
        let oldCursor = list.cursor
        list.append(page(restaurants(4..<8), cursor: "c2"))
        let nextCursor = list.cursor
        #expect(oldCursor != nextCursor)
        list.select(id: "r5")
        // Two new restaurants on top, r1 was deleted; the page covers down to r3.
        let fresh = [Restaurant.fixture("n1", minutesAgo: 0), Restaurant.fixture("n0", minutesAgo: 0.5)]
            + restaurants(0..<4).filter { $0.id != "r1" }
        list.mergeRefresh(page(fresh, cursor: "c3"))
        #expect(list.items.map(\.id) == ["n1", "n0", "r0", "r2", "r3", "r4", "r5", "r6", "r7"])
        #expect(list.cursor == nextCursor, "older pages stay loaded, so paging continues after them")
        #expect(list.selected?.id == "r5")
    }

    @Test func refreshWithoutCursorIsTheWholeTruth() {
        var list = DiscoverList()
        list.replace(with: page(restaurants(0..<4), cursor: nil))
        list.mergeRefresh(page(restaurants(0..<2), cursor: nil))
        #expect(list.items.map(\.id) == ["r0", "r1"])
    }

    @Test func selectionFallsToTheSamePlaceWhenItsRowIsDeleted() {
        var list = DiscoverList()
        list.replace(with: page(restaurants(0..<4), cursor: nil))
        list.select(id: "r2")
        list.mergeRefresh(page(restaurants(0..<4).filter { $0.id != "r2" }, cursor: nil))
        #expect(list.selected?.id == "r3")
    }

    @Test func optimisticInsertStaysUntilAQueryReturnsIt() {
        var list = DiscoverList()
        list.replace(with: page(restaurants(0..<2), cursor: nil))
        let mine = Restaurant.fixture("mine", minutesAgo: 0)
        list.insertOptimistically(mine)
        #expect(list.items.map(\.id) == ["mine", "r0", "r1"])
        #expect(list.selected?.id == "mine")
        // A refresh that started before the save does not know it yet: keep the local copy.
        list.mergeRefresh(page(restaurants(0..<2), cursor: nil))
        #expect(list.items.map(\.id) == ["mine", "r0", "r1"])
        #expect(list.pendingInserts.count == 1)
        // The query returns it: the local copy goes, no duplicate.
        list.mergeRefresh(page([mine] + restaurants(0..<2), cursor: nil))
        #expect(list.items.map(\.id) == ["mine", "r0", "r1"])
        #expect(list.pendingInserts.isEmpty)
        #expect(list.selected?.id == "mine")
    }

    @Test func optimisticDeleteStaysHiddenUntilAQueryLacksIt() {
        var list = DiscoverList()
        list.replace(with: page(restaurants(0..<3), cursor: nil))
        list.removeOptimistically(id: "r1")
        #expect(list.items.map(\.id) == ["r0", "r2"])
        list.confirmRemoval(id: "r1")
        // A stale query still returns it: it stays hidden.
        list.mergeRefresh(page(restaurants(0..<3), cursor: nil))
        #expect(list.items.map(\.id) == ["r0", "r2"])
        #expect(list.pendingDeletes == ["r1"])
        list.mergeRefresh(page(restaurants(0..<3).filter { $0.id != "r1" }, cursor: nil))
        #expect(list.pendingDeletes.isEmpty)
        #expect(list.items.map(\.id) == ["r0", "r2"])
    }

    @Test func failedDeleteShowsTheRowAgain() {
        var list = DiscoverList()
        list.replace(with: page(restaurants(0..<3), cursor: nil))
        list.removeOptimistically(id: "r1")
        list.cancelRemoval(id: "r1")
        #expect(list.items.map(\.id) == ["r0", "r1", "r2"])
    }

    @Test func aDeletionTheServerRefusedAfterQueueingShowsTheRowAgainWithTheReason() {
        var list = DiscoverList()
        list.replace(with: page(restaurants(0..<3), cursor: nil))
        list.removeOptimistically(id: "r1")
        list.confirmRemoval(id: "r1")   // queued offline: the store answered "deleted"
        #expect(list.items.map(\.id) == ["r0", "r2"])
        // The upload met a conflict: the refresh brings the server's version back, marked.
        var refused = restaurants(0..<3)
        refused[1].uploadFailure = "Conflict: changed on the server by bob since it was deleted here; not deleted"
        list.mergeRefresh(page(refused, cursor: nil))
        #expect(list.items.map(\.id) == ["r0", "r1", "r2"])
        #expect(list.restaurant(withID: "r1")?.uploadFailure?.hasPrefix("Conflict:") == true)
    }

    @Test func theCatchUpDropsDeletedRowsAndReplacesChangedOnesInPlace() {
        var list = DiscoverList()
        list.replace(with: page(restaurants(0..<6), cursor: "c"))
        list.select(id: "r3")
        var renamed = restaurants(4..<5)[0]
        renamed.name = "Renamed"
        list.applyChanges(deleted: ["r1", "r5", "unknown"], updated: [renamed, .fixture("not-loaded", minutesAgo: 1)])
        #expect(list.items.map(\.id) == ["r0", "r2", "r3", "r4"], "a changed row that is not loaded is left to paging")
        #expect(list.restaurant(withID: "r4")?.name == "Renamed")
        #expect(list.selected?.id == "r3")
    }

    @Test func needsMoreNearTheEnd() {
        var list = DiscoverList()
        list.replace(with: page(restaurants(0..<20), cursor: "c"))
        list.select(index: 0)
        #expect(!list.needsMore(threshold: 5))
        list.select(index: 14)
        #expect(list.needsMore(threshold: 5))
    }
}
