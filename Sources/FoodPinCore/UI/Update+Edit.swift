// `e`: the form filled with the selected restaurant, saved in place.
extension AppState {
    /// Opens the form on the restaurant shown (the selected row, or the detail view's), if the
    /// user may edit it: only its creator may, as the access rules say; others get one line.
    mutating func startEditing() -> [Effect] {
        guard let target = ownRestaurantShown(toDo: "edit") else { return [] }
        if target.refusedEdit != nil {
            // Edited offline, refused at upload: the form shows the edit and the server's
            // version, to keep theirs or overwrite with mine, as for a conflict met online.
            form = RestaurantForm(resolving: target, services: config.formServices)
            screenBeforeForm = screen
            screen = .form
            return []
        }
        if target.isWaiting || target.uploadFailure != nil {
            // Its change tag is not the server's yet: an edit now would conflict with itself.
            errorBanner = ErrorBanner(message: "“\(target.name)” has not reached the server yet; edit it once it has", retry: nil)
            return []
        }
        form = RestaurantForm(editing: target, services: config.formServices)
        screenBeforeForm = screen
        screen = .form
        return []
    }

    /// The edit is saved (or queued): the row changes where it is, on the full list behind a search too.
    mutating func editSucceeded(_ restaurant: Restaurant) -> [Effect] {
        ownChanges.insert(restaurant.id)
        liveChanges[restaurant.id] = nil
        closeForm()
        showInPlace(restaurant)
        return []
    }

    /// Replaces a loaded row with this version, where it is (the creation date is unchanged), and
    /// loads its thumbnail again, since the photo may have changed.
    mutating func showInPlace(_ restaurant: Restaurant) {
        var shown = restaurant
        if let row = list.restaurant(withID: restaurant.id) ?? search?.savedList.restaurant(withID: restaurant.id) {
            (shown.createdAt, shown.createdBy) = (row.createdAt, row.createdBy)
        }
        list.applyChanges(deleted: [], updated: [shown])
        updateSavedList { $0.applyChanges(deleted: [], updated: [shown]) }
        staleThumbnails.insert(restaurant.id)
    }

    /// Leaves the form for the screen it was opened from (the detail view of a restaurant still listed).
    mutating func closeForm() {
        form = nil
        if case .detail(let id) = screenBeforeForm, list.restaurant(withID: id) != nil {
            screen = screenBeforeForm
        } else {
            screen = .list
        }
        screenBeforeForm = .list
    }

    /// Drops the thumbnails of changed restaurants, here and in the loader, so that the rows on
    /// screen ask for them again (after this, ``thumbnailEffects()`` does).
    mutating func forgetStaleThumbnails() -> [Effect] {
        guard !staleThumbnails.isEmpty else { return [] }
        let ids = staleThumbnails
        staleThumbnails = []
        thumbnails = thumbnails.filter { !ids.contains($0.key.recordID ?? "") }
        requestedThumbnails = requestedThumbnails.filter { !ids.contains($0.recordID ?? "") }
        return [.forgetThumbnails(ids: ids.sorted())]
    }
}
