/// Where the viewport goes when rows arrive above the selection (a refresh, an optimistic insert).
///
/// A list showing its first row stays at the top, so what is new is seen; the selected
/// restaurant stays selected. A list scrolled down keeps the selection on the same screen
/// row, and the title counts the new restaurants above the viewport ("↑ 2 new") until the
/// reader scrolls up to them (`g` goes there).
///
/// ```swift
/// let place = viewportPlace()
/// list.mergeRefresh(page)
/// restoreViewport(place)
/// ```
struct ViewportPlace {
    var wasAtTop: Bool
    var selectedRowOnScreen: Int
    var ids: Set<String>
}

extension AppState {
    /// A fresh first page (with what changed on later pages) merged into the list. At the top the
    /// new rows show above the selection; scrolled, the reader keeps their place.
    mutating func mergeServerPage(_ page: DiscoverPage) {
        // Rows whose record changed (another machine's edit) load their thumbnail again: the photo may be new.
        for fresh in page.restaurants + page.updated {
            if let tag = list.restaurant(withID: fresh.id)?.changeTag, let new = fresh.changeTag, tag != new {
                staleThumbnails.insert(fresh.id)
            }
        }
        let place = viewportPlace()
        list.mergeRefresh(page)
        list.applyChanges(deleted: page.deletedIDs, updated: page.updated)
        if list.selectedIndex == nil { list.select(index: 0) }
        restoreViewport(place)
    }

    /// The viewport before rows change.
    func viewportPlace() -> ViewportPlace {
        ViewportPlace(wasAtTop: scrollOffset == 0,
                      selectedRowOnScreen: (list.selectedIndex ?? 0) - scrollOffset,
                      ids: Set(list.items.map(\.id)))
    }

    /// Puts the viewport back after rows changed, and remembers the new rows it does not show.
    mutating func restoreViewport(_ place: ViewportPlace) {
        if place.wasAtTop {
            scrollOffset = 0
        } else {
            scrollOffset = max(0, (list.selectedIndex ?? 0) - place.selectedRowOnScreen)
        }
        for restaurant in list.items where !place.ids.contains(restaurant.id) {
            newAbove.insert(restaurant.id)
        }
    }

    /// Forgets new rows that are gone or that the reader has scrolled to (call after scrolling).
    mutating func pruneNewAbove() {
        guard !newAbove.isEmpty else { return }
        newAbove = newAbove.filter { id in list.index(of: id).map { $0 < scrollOffset } ?? false }
    }

    /// How many new restaurants are above the viewport, for the title ("↑ 2 new").
    package var newAboveCount: Int { newAbove.count }
}
