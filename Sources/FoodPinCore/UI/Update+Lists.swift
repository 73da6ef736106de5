/// The Lists screens and the save-to-list picker: `l` opens Lists, Enter a list, `d` removes an
/// entry where the user may write, `s` on Discover saves the selected restaurant to a list.
extension AppState {
    // MARK: Messages

    mutating func listsMessage(_ msg: Msg) -> [Effect] {
        switch msg {
        case .listsLoaded(.success(let overview)):
            lists.isLoading = false
            lists.overview = overview
            lists.liveChanges = 0
            if var picker = lists.picker, picker.names == nil {
                picker.names = overview.mine.map(\.name) + overview.sharedWithMe.filter(\.canWrite).map(\.name)
                picker.selected = 0
                lists.picker = picker
            }
            if let open = lists.open {
                // The open list is gone (the owner stopped sharing it, or deleted it): back to Lists.
                if let fresh = overview.all.first(where: { $0.ref == open.ref }) {
                    lists.open = fresh
                } else if screen == .listEntries {
                    lists.open = nil
                    lists.entries = []
                    screen = .lists
                    lists.notice = "“\(open.name)” is no longer shared with you"
                }
            }
            if isOffline, overview.isFromCache { lists.notice = "offline · cached lists" }
        case .listsLoaded(.failure(let error)):
            lists.isLoading = false
            if lists.picker?.names == nil { lists.picker?.names = [] }
            lists.notice = error.banner(couldNot: "load lists", cached: lists.overview?.all.count ?? 0)
        case .listEntriesLoaded(let ref, let result):
            guard lists.open?.ref == ref else { return [] }
            lists.isLoading = false
            switch result {
            case .success(let entries):
                lists.entries = entries
                lists.areEntriesLoaded = true
                lists.open?.count = entries.count
            case .failure(let error) where error.code == .notFound || error.code == .permissionDenied:
                // Removed from the share meanwhile: the list is gone.
                let name = lists.open?.name ?? "The list"
                lists.open = nil
                lists.entries = []
                screen = .lists
                lists.notice = "“\(name)” is no longer shared with you"
                lists.isLoading = true
                return [.loadLists]
            case .failure(let error):
                lists.notice = error.banner(couldNot: "load the list", cached: lists.entries.count)
            }
        case .savedToList(let name, let result):
            lists.picker = nil
            switch result {
            case .success(let alreadyThere):
                lists.notice = alreadyThere ? "Already on “\(name)”" : "Saved to “\(name)”"
                lists.overview = nil   // counts changed: read again when Lists opens
            case .failure(let error):
                lists.notice = "Couldn't save to “\(name)”: \(error.message)"
            }
        case .listEntryRemoved(let ref, let id, let error):
            guard let error else { return [] }
            _ = id
            lists.notice = "Couldn't remove it: \(error.message)"
            if lists.open?.ref == ref { lists.isLoading = true; return [.loadListEntries(ref)] }
        case .listsChanged(let count):
            lists.liveChanges += max(1, count)
        default:
            break
        }
        lists.clampSelection()
        return []
    }

    // MARK: Keys

    /// `l` on Discover.
    mutating func openLists() -> [Effect] {
        screen = .lists
        lists.notice = nil
        lists.isLoading = true
        return [.loadLists]
    }

    /// `s` on Discover: the picker for the selected restaurant.
    mutating func openSavePicker() -> [Effect] {
        guard let restaurant = list.selected else { return [] }
        lists.notice = nil
        lists.picker = SaveToListPicker(restaurantID: restaurant.id, restaurantName: restaurant.name)
        lists.isLoading = true
        return [.loadLists]
    }

    mutating func handlePickerKey(_ key: Key) -> [Effect] {
        guard var picker = lists.picker, !picker.isSaving else { return [] }
        let rows = (picker.names?.count ?? 0) + 1
        switch key {
        case .escape:
            lists.picker = nil
            return []
        case .down, .tab:
            picker.selected = min(rows - 1, picker.selected + 1)
        case .up, .backTab:
            picker.selected = max(0, picker.selected - 1)
        case .enter:
            let name = picker.isOnNewListRow ? picker.newName.text : picker.names?[picker.selected] ?? ""
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, picker.names != nil else { return [] }
            picker.isSaving = true
            lists.picker = picker
            return [.saveToList(restaurantID: picker.restaurantID, list: trimmed)]
        default:
            if picker.isOnNewListRow {
                picker.newName.handle(key)
            } else if case .character("j") = key {
                picker.selected = min(rows - 1, picker.selected + 1)
            } else if case .character("k") = key {
                picker.selected = max(0, picker.selected - 1)
            } else if case .character(let character) = key, !character.isWhitespace || character == " " {
                // Typing starts a new list's name.
                picker.selected = rows - 1
                picker.newName.handle(key)
            }
        }
        lists.picker = picker
        return []
    }

    mutating func handleListsKey(_ key: Key) -> [Effect] {
        lists.notice = nil
        if screen == .listEntries { return handleEntriesKey(key) }
        let count = lists.overview?.all.count ?? 0
        switch key {
        case .character("j"), .down, .wheelDown: lists.selectedIndex += 1
        case .character("k"), .up, .wheelUp: lists.selectedIndex -= 1
        case .character("g"), .home: lists.selectedIndex = 0
        case .character("G"), .end: lists.selectedIndex = count - 1
        case .enter, .right:
            guard let selected = lists.selected else { break }
            lists.open = selected
            lists.entries = []
            lists.areEntriesLoaded = false
            lists.selectedEntry = 0
            lists.entryScroll = 0
            lists.isLoading = true
            screen = .listEntries
            return [.loadListEntries(selected.ref)]
        case .character("r"):
            lists.isLoading = true
            return [.loadLists]
        case .escape, .character("q"), .backspace, .left, .character("h"):
            screen = .list
        case .character("?"):
            isHelpVisible = true
        default: break
        }
        lists.clampSelection()
        return []
    }

    private mutating func handleEntriesKey(_ key: Key) -> [Effect] {
        guard let open = lists.open else { screen = .lists; return [] }
        switch key {
        case .character("j"), .down, .wheelDown: lists.selectedEntry += 1
        case .character("k"), .up, .wheelUp: lists.selectedEntry -= 1
        case .character("g"), .home: lists.selectedEntry = 0
        case .character("G"), .end: lists.selectedEntry = lists.entries.count - 1
        case .character("r"):
            lists.isLoading = true
            lists.liveChanges = 0
            return [.loadListEntries(open.ref), .loadLists]
        case .character("d"):
            guard lists.entries.indices.contains(lists.selectedEntry) else { break }
            let entry = lists.entries[lists.selectedEntry]
            guard open.canWrite else {
                lists.notice = "Read-only: \(open.owner) shared “\(open.name)” with you read-only"
                break
            }
            lists.entries.remove(at: lists.selectedEntry)
            lists.open?.count = lists.entries.count
            lists.notice = "Removed “\(entry.name)”"
            lists.clampSelection()
            return [.removeListEntry(open.ref, id: entry.id)]
        case .escape, .character("q"), .backspace, .left, .character("h"):
            screen = .lists
            lists.isLoading = true
            lists.clampSelection()
            return [.loadLists]
        case .character("?"):
            isHelpVisible = true
        default: break
        }
        lists.clampSelection()
        let rows = visibleRowCount
        if lists.selectedEntry < lists.entryScroll { lists.entryScroll = lists.selectedEntry }
        if lists.selectedEntry >= lists.entryScroll + rows { lists.entryScroll = lists.selectedEntry - rows + 1 }
        return []
    }

    /// The entry rows' thumbnails on screen.
    var visibleEntryThumbnailKeys: [ThumbnailKey] {
        guard let open = lists.open else { return [] }
        let end = min(lists.entries.count, lists.entryScroll + visibleRowCount)
        guard lists.entryScroll < end else { return [] }
        return lists.entries[lists.entryScroll..<end].map {
            ThumbnailKey(recordID: RestaurantListRecord.thumbnailID(entry: $0.id, in: open.ref), size: .row)
        }
    }
}
