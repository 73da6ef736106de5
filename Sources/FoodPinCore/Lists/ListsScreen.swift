/// What the Lists screens show: both sections, the list that is open with its entries, and the
/// Discover screen's "save to list" picker.
///
/// Invariant: `selectedIndex` is within `overview.all` (0 when empty), `selectedEntry` within `entries`.
package struct ListsScreen: Sendable {
    package var overview: RestaurantListsOverview?
    package var selectedIndex = 0
    package var isLoading = false
    /// The list whose entries show (``AppState/Screen/listEntries``).
    package var open: RestaurantListSummary?
    package var entries: [Restaurant] = []
    package var areEntriesLoaded = false
    package var selectedEntry = 0
    package var entryScroll = 0
    /// `s` on Discover: where to save the selected restaurant.
    package var picker: SaveToListPicker?
    /// One line of news: "Saved to Friday", a refusal.
    package var notice: String?
    /// Other participants' changes since the last load (the live banner).
    package var liveChanges = 0

    package init() {}

    package var selected: RestaurantListSummary? {
        guard let all = overview?.all, all.indices.contains(selectedIndex) else { return nil }
        return all[selectedIndex]
    }

    mutating func clampSelection() {
        let count = overview?.all.count ?? 0
        selectedIndex = count == 0 ? 0 : min(max(0, selectedIndex), count - 1)
        selectedEntry = entries.isEmpty ? 0 : min(max(0, selectedEntry), entries.count - 1)
    }
}

/// The Discover screen's `s`: pick one of the lists the user may write to, or type a new name.
package struct SaveToListPicker: Hashable, Sendable {
    package var restaurantID: String
    package var restaurantName: String
    /// Lists the restaurant can go to (mine, then shared read-write), by name; `nil` while loading.
    package var names: [String]?
    /// An index into `names`; `names.count` is the "New list" row.
    package var selected = 0
    package var newName = LineEditor(maxLength: 100)
    package var isSaving = false

    package init(restaurantID: String, restaurantName: String) {
        self.restaurantID = restaurantID
        self.restaurantName = restaurantName
    }

    package var isOnNewListRow: Bool { selected == (names?.count ?? 0) }
}
