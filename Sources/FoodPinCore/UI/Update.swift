/// Applies a message to the state and returns the work to do, Bubble Tea style.
///
/// Pure: no I/O, no clocks, no threads. Effects describe the work; the effect handler
/// runs them and posts the results back as messages.
///
/// ```swift
/// var state = AppState(config: config)
/// let effects = update(&state, .start)   // [.loadFirstPage(limit: 50), .subscribeToChanges, .watchReachability]
/// ```
package func update(_ state: inout AppState, _ msg: Msg) -> [Effect] {
    state.update(msg)
}

extension AppState {
    mutating func update(_ msg: Msg) -> [Effect] {
        var effects: [Effect]
        switch msg {
        case .start:
            isLoadingFirstPage = true
            effects = [.loadFirstPage(limit: config.pageSize), .subscribeToChanges, .watchReachability, .subscribeToListChanges]
        case .key(let key):
            effects = handle(key)
        case .resize(let width, let height):
            self.width = max(0, width)
            self.height = max(0, height)
            effects = []
        case .tick:
            if isSpinnerVisible { spinnerPhase &+= 1 }
            effects = []
        case .pageLoaded(let request, let result):
            effects = search == nil ? pageLoaded(request, result) : fullListPageLoadedWhileSearching(request, result)
        case .searchLoaded(let request, let kind, let result):
            effects = searchLoaded(request, kind, result)
        case .thumbnailLoaded(let key, let outcome):
            if requestedThumbnails.remove(key) != nil || visibleThumbnailKeys.contains(key) {
                thumbnails[key] = outcome
            }
            effects = []
        case .previewLoaded(let path, let outcome):
            form?.previewLoaded(path: path, outcome)
            effects = []
        case .imageProbed(let path, let problem):
            effects = imageProbed(path: path, problem: problem)
        case .directoryListed(let path, let entries):
            effects = directoryListed(path, entries: entries)
        case .saveSucceeded(let restaurant):
            // The saved restaurant shows selected on the full list, even if a search was open.
            effects = closeSearch()
            form = nil
            screen = .list
            ownChanges.insert(restaurant.id)
            liveChanges[restaurant.id] = nil
            let place = viewportPlace()
            list.insertOptimistically(restaurant, select: true)
            restoreViewport(place)
            if let index = list.selectedIndex { scrollOffset = min(scrollOffset, index) }
        case .editSucceeded(let restaurant):
            effects = editSucceeded(restaurant)
        case .saveFailed(let error):
            if form != nil {
                form?.saveFailed(error)
            } else {
                // The form is closed (keeping theirs failed to drop the refused edit): say so.
                errorBanner = ErrorBanner(message: error.message, retry: nil)
            }
            effects = []
        case .deleteSucceeded(let id):
            list.confirmRemoval(id: id)
            updateSavedList { $0.confirmRemoval(id: id) }
            effects = []
        case .deleteFailed(let id, let error):
            let name = list.confirmed.first { $0.id == id }?.name ?? id
            list.cancelRemoval(id: id)
            updateSavedList { $0.cancelRemoval(id: id) }
            errorBanner = ErrorBanner(message: error.banner(couldNot: "delete “\(name)”", cached: cachedCount), retry: nil)
            effects = []
        case .linkOpened(let link, let opened):
            guard case .detail = screen else { effects = []; break }
            linkNotice = opened ? "Opening the map…" : "Map: " + link.target
            effects = []
        case .remoteChanges(let changes):
            noteRemoteChanges(changes)
            effects = []
        case .reachabilityChanged(let isReachable):
            effects = reachabilityChanged(isReachable)
        case .listsLoaded, .listEntriesLoaded, .savedToList, .listEntryRemoved, .listsChanged:
            effects = listsMessage(msg)
        }
        keepSelectionVisible()
        pruneNewAbove()
        pruneLiveChanges()
        effects += forgetStaleThumbnails()
        effects += loadMoreIfNeeded()
        effects += thumbnailEffects()
        return effects
    }

    // MARK: Keys

    private mutating func handle(_ key: Key) -> [Effect] {
        if screen == .form { return handleFormKey(key) }
        if isHelpVisible {
            if [.escape, .character("q"), .character("?"), .enter].contains(key) { isHelpVisible = false }
            return []
        }
        if lists.picker != nil { return handlePickerKey(key) }
        if screen == .list { lists.notice = nil }
        if screen == .lists || screen == .listEntries { return handleListsKey(key) }
        if let id = deleteConfirmation {
            deleteConfirmation = nil
            guard key == .character("y") || key == .character("Y") else { return [] }
            return delete(id: id)
        }
        if let effects = handleSearchKey(key) { return effects }
        switch key {
        case .character("?"):
            isHelpVisible = true
            return []
        case .character("a"):
            form = RestaurantForm(services: config.formServices)
            screenBeforeForm = .list
            screen = .form
            return []
        case .character("e"):
            return startEditing()
        case .character("r"):
            return refreshOrRetry()
        case .character("d"):
            return askToDelete()
        default:
            break
        }
        switch screen {
        case .list: return handleListKey(key)
        case .detail: return handleDetailKey(key)
        case .form, .lists, .listEntries: return []
        }
    }

    private mutating func handleListKey(_ key: Key) -> [Effect] {
        let page = max(1, visibleRowCount - 1)
        switch key {
        case .character("j"), .down: list.moveSelection(by: 1)
        case .character("k"), .up:
            // Up at the top pulls the list down past its start: refresh.
            if (list.selectedIndex ?? 0) == 0 { return startRefresh() }
            list.moveSelection(by: -1)
        case .character("g"), .home: list.select(index: 0)
        case .character("G"), .end: list.select(index: list.count - 1)
        case .pageDown, .control("f"): list.moveSelection(by: page)
        case .pageUp, .control("b"): list.moveSelection(by: -page)
        case .wheelDown: list.moveSelection(by: 1)
        case .wheelUp: list.moveSelection(by: -1)
        case .character("l"):
            return openLists()
        case .character("s"):
            return openSavePicker()
        case .enter, .right:
            if let selected = list.selected {
                screen = .detail(id: selected.id)
                detailScroll = 0
            }
        case .escape:
            if !liveChanges.isEmpty { liveChanges = [:] } else { errorBanner = nil }
        case .character("q"):
            shouldQuit = true
            exitCode = 0
            return [.quit]
        default: break
        }
        return []
    }

    private mutating func handleDetailKey(_ key: Key) -> [Effect] {
        linkNotice = nil
        switch key {
        case .character("o"):
            // The map of the location, opened outside the terminal (or its URL shown).
            guard case .detail(let id) = screen, let location = list.restaurant(withID: id)?.location,
                  let link = Hyperlink.map(location) else { break }
            return [.openLink(link)]
        case .escape, .character("q"), .backspace, .character("h"), .left:
            screen = .list
        case .character("j"), .down, .wheelDown:
            guard case .detail(let id) = screen, let restaurant = list.restaurant(withID: id) else { break }
            let textWidth = Layout.detailText(width: width, height: height, showsImages: config.showsImages).width
            let lines = Layout.detailDescriptionLines(restaurant, textWidth: textWidth).count
            detailScroll = min(detailScroll + 1, max(0, lines - 1))
        case .character("k"), .up, .wheelUp: detailScroll = max(0, detailScroll - 1)
        case .character("g"), .home: detailScroll = 0
        default: break
        }
        return []
    }

    private mutating func handleFormKey(_ key: Key) -> [Effect] {
        guard var form else { closeForm(); return [] }
        let action = form.handle(key)
        let probe = config.showsImages ? form.pathToProbe() : nil
        self.form = form
        return formEffects(action) + (probe.map { [.probeImage(path: $0)] } ?? [])
    }

    private mutating func formEffects(_ action: RestaurantForm.Action) -> [Effect] {
        switch action {
        case .none: return []
        case .cancel:
            closeForm()
            return []
        case .save(let draft):
            if let edit = form?.edit { return [.saveEdit(edit)] }
            return [.save(draft)]
        case .keepTheirs(let theirs):
            let refused = form?.resolvesRefusedUpload == true
            closeForm()
            showInPlace(theirs)
            // An edit refused at upload waits in the outbox, marked: keeping theirs drops it.
            return refused ? [.discardRefusedEdit(id: theirs.id)] : []
        case .probeImage(let path): return [.probeImage(path: path)]
        case .listDirectory(let path): return [.listDirectory(path: path)]
        }
    }

    /// The image probe answered: show the preview of a readable image, or send the save Ctrl-S waits on.
    private mutating func imageProbed(path: String, problem: String?) -> [Effect] {
        guard var form else { return [] }
        let action = form.imageProbed(path: path, problem: problem)
        let showPreview = config.showsImages && problem == nil && form.isPreviewReady && form.previewPath == path
            && form.preview == nil
        self.form = form
        return formEffects(action) + (showPreview ? [.loadPreview(path: path, size: RestaurantForm.previewSize)] : [])
    }

    /// A Tab completion's listing arrived: complete, then apply the keys typed while it was listed.
    private mutating func directoryListed(_ path: String, entries: [FormServices.DirectoryEntry]?) -> [Effect] {
        guard var form else { return [] }
        let queued = form.directoryListed(path, entries: entries)
        let probe = config.showsImages ? form.pathToProbe() : nil
        self.form = form
        var effects = probe.map { [Effect.probeImage(path: $0)] } ?? []
        for key in queued where screen == .form { effects += handleFormKey(key) }
        return effects
    }

    // MARK: Loading

    private mutating func refreshOrRetry() -> [Effect] {
        liveChanges = [:]
        liveChangeTags = [:]
        if let retry = errorBanner?.retry {
            errorBanner = nil
            switch retry {
            case .loadFirstPage: isLoadingFirstPage = true
            case .loadNextPage: isLoadingMore = true; isPagingBlocked = false
            case .refresh:
                guard !isRefreshing else {
                    isRefreshQueued = true
                    return []
                }
                isRefreshing = true
            default: break
            }
            return [retry]
        }
        errorBanner = nil
        return startRefresh()
    }

    mutating func startRefresh() -> [Effect] {
        liveChanges = [:]
        liveChangeTags = [:]
        if !list.isLoaded {
            guard !isLoadingFirstPage else { return [] }
            isLoadingFirstPage = true
            return [.loadFirstPage(limit: config.pageSize)]
        }
        guard !isRefreshing else {
            isRefreshQueued = true
            return []
        }
        isRefreshing = true
        return [.refresh(limit: config.pageSize)]
    }

    /// A refresh ended: the one asked for meanwhile starts.
    private mutating func refreshEnded() -> [Effect] {
        isRefreshing = false
        guard isRefreshQueued else { return [] }
        isRefreshQueued = false
        return startRefresh()
    }

    /// Rows read from the server earlier (not those waiting to upload).
    var cachedCount: Int { list.items.count { !$0.isWaiting } }

    /// The list came from the local cache: the server is away; `r` tries it again.
    mutating func showOffline() {
        isOffline = true
        errorBanner = ErrorBanner(message: "offline · \(cachedCount) cached", retry: .refresh(limit: config.pageSize))
    }

    mutating func pageLoaded(_ request: Msg.PageRequest, _ result: Result<DiscoverPage, DiscoverError>) -> [Effect] {
        switch (request, result) {
        case (.cached, .success(let page)):
            // Drawn at once; a server page that came first wins.
            guard !list.isLoaded else { return [] }
            list.replace(with: page)
            if list.selectedIndex == nil { list.select(index: 0) }
            isShowingCachedPage = true
        case (.cached, .failure):
            break
        case (.first, .success(let page)):
            isLoadingFirstPage = false
            errorBanner = nil
            if isShowingCachedPage {
                // The reader may have moved on the cached rows: the server's page merges in as a refresh.
                isShowingCachedPage = false
                mergeServerPage(page)
            } else {
                list.replace(with: page)
                if list.selectedIndex == nil { list.select(index: 0) }
            }
            notePageSource(page)
        case (.first, .failure(let error)):
            isLoadingFirstPage = false
            if error.code == .offline { isOffline = true }
            isShowingCachedPage = false
            errorBanner = ErrorBanner(message: error.banner(couldNot: "load restaurants", cached: cachedCount),
                                      retry: .loadFirstPage(limit: config.pageSize))
        case (.refresh, .success(let page)):
            if errorBanner?.retry == .refresh(limit: config.pageSize) { errorBanner = nil }
            mergeServerPage(page)
            notePageSource(page)
            return refreshEnded()
        case (.refresh, .failure(let error)):
            if error.code == .offline { isOffline = true }
            errorBanner = ErrorBanner(message: error.banner(couldNot: "refresh", cached: cachedCount), retry: .refresh(limit: config.pageSize))
            return refreshEnded()
        case (.next, .success(let page)):
            isLoadingMore = false
            list.append(page)
        case (.next, .failure(let error)):
            isLoadingMore = false
            isPagingBlocked = true
            if let cursor = list.cursor {
                errorBanner = ErrorBanner(message: error.banner(couldNot: "load more", cached: cachedCount),
                                          retry: .loadNextPage(cursor, limit: config.pageSize))
            }
        }
        return []
    }

    private mutating func loadMoreIfNeeded() -> [Effect] {
        if search != nil { return searchLoadMoreIfNeeded() }
        guard !isLoadingMore, !isPagingBlocked, !isLoadingFirstPage, list.isLoaded,
              let cursor = list.cursor, list.needsMore(threshold: max(5, visibleRowCount)) else { return [] }
        isLoadingMore = true
        return [.loadNextPage(cursor, limit: config.pageSize)]
    }

    // MARK: Deleting

    /// The restaurant shown (the detail view's, or the selected row), when the user may change it:
    /// only its creator may, as the access rules say; anyone else gets one line and `nil`.
    mutating func ownRestaurantShown(toDo action: String) -> Restaurant? {
        let target: Restaurant?
        switch screen {
        case .detail(let id): target = list.restaurant(withID: id)
        default: target = list.selected
        }
        guard let target else { return nil }
        if let user = config.currentUser, target.createdBy != user {
            errorBanner = ErrorBanner(
                message: "Permission Failure: “\(target.name)” was added by \(target.createdBy); only they can \(action) it",
                retry: nil)
            return nil
        }
        return target
    }

    private mutating func askToDelete() -> [Effect] {
        guard let target = ownRestaurantShown(toDo: "delete") else { return [] }
        deleteConfirmation = target.id
        return []
    }

    private mutating func delete(id: String) -> [Effect] {
        ownChanges.insert(id)
        liveChanges[id] = nil
        list.removeOptimistically(id: id)
        updateSavedList { $0.removeOptimistically(id: id) }
        if case .detail(let shown) = screen, shown == id { screen = .list }
        return [.delete(id: id)]
    }

    // MARK: Scrolling and thumbnails

    mutating func keepSelectionVisible() {
        let rows = visibleRowCount
        guard let selected = list.selectedIndex else { scrollOffset = 0; return }
        if selected < scrollOffset { scrollOffset = selected }
        if selected >= scrollOffset + rows { scrollOffset = selected - rows + 1 }
        scrollOffset = max(0, min(scrollOffset, list.count - rows))
    }

    /// The thumbnails the screen shows right now.
    var visibleThumbnailKeys: [ThumbnailKey] {
        guard config.showsImages, !isTooSmall, !isHelpVisible else { return [] }
        switch screen {
        case .list:
            let end = min(list.count, scrollOffset + visibleRowCount)
            guard scrollOffset < end else { return [] }
            return list.items[scrollOffset..<end].map { ThumbnailKey(recordID: $0.id, size: .row) }
        case .detail(let id):
            return [ThumbnailKey(recordID: id, size: detailImageSize)]
        case .form, .lists:
            return []
        case .listEntries:
            return visibleEntryThumbnailKeys
        }
    }

    /// Drops thumbnails that left the screen and asks for the visible ones not loaded yet,
    /// but only when that set changes, so holding `j` does not flood the loader.
    private mutating func thumbnailEffects() -> [Effect] {
        let visible = visibleThumbnailKeys
        let visibleSet = Set(visible)
        thumbnails = thumbnails.filter { visibleSet.contains($0.key) }
        let wanted = visible.filter { thumbnails[$0] == nil }
        let wantedSet = Set(wanted)
        guard wantedSet != requestedThumbnails else { return [] }
        let hadRequests = !requestedThumbnails.isEmpty
        requestedThumbnails = wantedSet
        guard !wanted.isEmpty || hadRequests else { return [] }
        let size = wanted.first?.size ?? .row
        return [.loadThumbnails(ids: wanted.compactMap(\.recordID), size: size)]
    }
}
