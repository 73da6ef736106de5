/// The store operations the Discover screen needs, in its own terms.
///
/// The lead's LocalCloud adapter implements this with a `QueryOperation` on `Restaurant`
/// (sorted by `creationDate` descending, `desiredKeys` without `image`), `save`,
/// `deleteRecord(withID:)` and the container's notifications. Throw ``DiscoverError`` to
/// control the message shown; any other error is shown by its description.
package protocol DiscoverBackend: Sendable {
    /// The newest `limit` restaurants and the cursor after them.
    func firstPage(limit: Int) async throws -> DiscoverPage
    /// The first page as last read from the server, from a local cache without asking it, or
    /// `nil` (nothing cached, or a store that answers as fast): drawn at launch while
    /// ``firstPage(limit:)`` asks the server.
    func cachedFirstPage(limit: Int) async -> DiscoverPage?
    /// The first page again, with what changed on every page since the last read (deleted and
    /// changed restaurants, in ``DiscoverPage/deletedIDs`` and ``DiscoverPage/updated``).
    func refresh(limit: Int) async throws -> DiscoverPage
    /// The page after `cursor`.
    func nextPage(after cursor: PageCursor, limit: Int) async throws -> DiscoverPage
    /// Scales the image, saves the record, removes the temp file; returns what was saved.
    func save(_ draft: RestaurantDraft) async throws -> Restaurant
    /// Saves new values over a restaurant (the same record name and creation date), against the
    /// version in `edit.systemFields`; scales a new photo, or removes the photo; returns what was saved.
    /// Throws ``DiscoverError/Code/conflict`` with the server's version when it changed meanwhile.
    func update(_ edit: RestaurantEdit) async throws -> Restaurant
    func delete(id: String) async throws
    /// Drops an edit made offline that the server refused at upload: the user kept the server's version.
    func discardRefusedEdit(id: String) async throws
    /// Other users' changes as they happen; ends when the task is cancelled.
    func changes() -> AsyncStream<[RemoteChange]>
    /// The newest `limit` restaurants whose name, type, location or description contain every
    /// word of `text` (case- and accent-insensitive), and the cursor after them; `nextPage` continues.
    func search(_ text: String, limit: Int) async throws -> DiscoverPage
    /// Whether the server answers now, then each change (a local store: nothing, the stream ends).
    func reachability() -> AsyncStream<Bool>
}

extension DiscoverBackend {
    /// A backend without a cache draws its first page when it arrives.
    package func cachedFirstPage(limit: Int) async -> DiscoverPage? { nil }

    /// A backend without change tracking refreshes the first page only.
    package func refresh(limit: Int) async throws -> DiscoverPage {
        try await firstPage(limit: limit)
    }

    /// A backend without editing refuses it.
    package func update(_ edit: RestaurantEdit) async throws -> Restaurant {
        throw DiscoverError(.saveFailed, "Editing is not available")
    }

    /// A backend without an outbox has no refused edits.
    package func discardRefusedEdit(id: String) async throws {}

    /// A backend without a server is always there.
    package func reachability() -> AsyncStream<Bool> {
        AsyncStream { $0.finish() }
    }

    /// A backend without search finds nothing.
    package func search(_ text: String, limit: Int) async throws -> DiscoverPage {
        throw DiscoverError(.loadFailed, "Search is not available")
    }
}
