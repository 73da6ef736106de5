/// The Discover list: loaded pages newest first, local saves and deletions not yet seen
/// by a query, and the selection, kept by record ID.
///
/// ```swift
/// var list = DiscoverList()
/// list.replace(with: firstPage)        // the first page arrives
/// list.append(nextPage)                // "Loading more…" finished; rows already shown are skipped
/// list.mergeRefresh(refreshedPage)     // new rows on top, deleted ones gone, selection kept
/// list.applyChanges(deleted: ids, updated: rows)   // the catch-up, on every loaded page
/// ```
///
/// Optimistic changes: a restaurant the user just saved shows at once and stays a local
/// copy until a query returns its ID; a restaurant the user deleted stays hidden until a
/// query comes back without it. No ID is ever shown twice.
package struct DiscoverList: Sendable {
    /// Rows as returned by queries, newest first, each ID once.
    package private(set) var confirmed: [Restaurant] = []
    /// Local saves no query has returned yet, newest first.
    package private(set) var pendingInserts: [Restaurant] = []
    /// Local deletions that queries may still return.
    package private(set) var pendingDeletes: Set<String> = []
    /// What the screen shows: pending inserts, then confirmed rows that are not pending deletion.
    package private(set) var items: [Restaurant] = []
    /// The cursor of the next page, or `nil` once every page is loaded.
    package private(set) var cursor: PageCursor?
    /// Whether a first page has arrived yet (an empty list then means "no restaurants").
    package private(set) var isLoaded = false
    /// The selected row, or `nil` when the list is empty.
    package private(set) var selectedIndex: Int?
    private var selectedID: String?
    private var indexByID: [String: Int] = [:]

    package init() {}

    package var count: Int { items.count }
    package var isEmpty: Bool { items.isEmpty }
    package var hasMore: Bool { cursor != nil }
    package var selected: Restaurant? { selectedIndex.map { items[$0] } }

    package func index(of id: String) -> Int? { indexByID[id] }
    package func restaurant(withID id: String) -> Restaurant? { indexByID[id].map { items[$0] } }

    /// Whether the selection is within `threshold` rows of the last loaded row and more pages exist.
    package func needsMore(threshold: Int) -> Bool {
        guard hasMore else { return false }
        guard let selectedIndex else { return isLoaded }
        return selectedIndex >= items.count - 1 - threshold
    }

    // MARK: Query results

    /// Replaces everything with a first page.
    package mutating func replace(with page: DiscoverPage) {
        confirmed = Self.unique(page.restaurants)
        cursor = page.cursor
        isLoaded = true
        reconcile()
    }

    /// Appends the next page, skipping rows already loaded (a row never appears twice).
    package mutating func append(_ page: DiscoverPage) {
        var seen = Set(confirmed.map(\.id))
        for restaurant in page.restaurants where seen.insert(restaurant.id).inserted {
            confirmed.append(restaurant)
        }
        cursor = page.cursor
        isLoaded = true
        reconcile()
    }

    /// Merges a fresh first page into what is loaded.
    ///
    /// The page is the truth for the range it covers: rows in it replace their old copies,
    /// rows missing from it that are newer than its last row were deleted. Older pages that
    /// were already loaded are kept after it, with their cursor.
    package mutating func mergeRefresh(_ page: DiscoverPage) {
        let fresh = Self.unique(page.restaurants)
        guard page.cursor != nil, let boundary = fresh.last else {
            // The page holds every matching row: anything else is gone.
            confirmed = fresh
            cursor = page.cursor
            isLoaded = true
            reconcile()
            return
        }
        let freshIDs = Set(fresh.map(\.id))
        let older = confirmed.filter { !freshIDs.contains($0.id) && $0.createdAt <= boundary.createdAt }
        if older.isEmpty || !isLoaded { cursor = page.cursor }
        confirmed = fresh + older
        isLoaded = true
        reconcile()
    }

    /// Applies what changed on any loaded page since it was read (a refresh's catch-up): deleted
    /// rows go, changed ones are replaced where they are. Rows not loaded are left to paging.
    /// The selection stays on the same restaurant (or the same place, if it was deleted).
    package mutating func applyChanges(deleted: Set<String>, updated: [Restaurant]) {
        guard !deleted.isEmpty || !updated.isEmpty else { return }
        let fresh = Dictionary(updated.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        confirmed = confirmed.compactMap { row in deleted.contains(row.id) ? nil : fresh[row.id] ?? row }
        reconcile()
    }

    // MARK: Optimistic changes

    /// Shows a restaurant the user just saved, at the top, until a query returns its ID.
    package mutating func insertOptimistically(_ restaurant: Restaurant, select: Bool = true) {
        pendingDeletes.remove(restaurant.id)
        pendingInserts.removeAll { $0.id == restaurant.id }
        if !confirmed.contains(where: { $0.id == restaurant.id }) {
            pendingInserts.append(restaurant)
            pendingInserts.sort { $0.createdAt > $1.createdAt }
        }
        if select { selectedID = restaurant.id }
        rebuild()
    }

    /// Hides a restaurant the user is deleting until a query comes back without it.
    package mutating func removeOptimistically(id: String) {
        pendingInserts.removeAll { $0.id == id }
        pendingDeletes.insert(id)
        rebuild()
    }

    /// The store confirmed the deletion: forget the row, but keep hiding it from stale queries.
    package mutating func confirmRemoval(id: String) {
        confirmed.removeAll { $0.id == id }
        rebuild()
    }

    /// The deletion failed: show the row again.
    package mutating func cancelRemoval(id: String) {
        pendingDeletes.remove(id)
        rebuild()
    }

    // MARK: Selection

    /// Selects the row at `index`, clamped to the list.
    package mutating func select(index: Int) {
        guard !items.isEmpty else { selectedIndex = nil; selectedID = nil; return }
        let clamped = min(max(0, index), items.count - 1)
        selectedIndex = clamped
        selectedID = items[clamped].id
    }

    /// Selects the row with `id`, if it is in the list.
    package mutating func select(id: String) {
        if let index = indexByID[id] { select(index: index) }
    }

    package mutating func moveSelection(by delta: Int) {
        select(index: (selectedIndex ?? 0) + delta)
    }

    // MARK: Internals

    private mutating func reconcile() {
        let confirmedIDs = Set(confirmed.map(\.id))
        // A row a query returns with an upload failure is a deletion the server refused: show it again.
        let refused = Set(confirmed.filter { $0.uploadFailure != nil }.map(\.id))
        pendingInserts.removeAll { confirmedIDs.contains($0.id) }
        pendingDeletes = pendingDeletes.filter { confirmedIDs.contains($0) && !refused.contains($0) }
        rebuild()
    }

    /// Recomputes `items` and keeps the selection on the same ID, or at the same place if it is gone.
    private mutating func rebuild() {
        let previousIndex = selectedIndex
        items = pendingInserts + confirmed.filter { !pendingDeletes.contains($0.id) }
        indexByID = Dictionary(items.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        if let selectedID, let index = indexByID[selectedID] {
            selectedIndex = index
        } else if items.isEmpty {
            selectedIndex = nil
            selectedID = nil
        } else {
            select(index: previousIndex ?? 0)
        }
    }

    private static func unique(_ restaurants: [Restaurant]) -> [Restaurant] {
        var seen = Set<String>()
        return restaurants.filter { seen.insert($0.id).inserted }
    }
}
