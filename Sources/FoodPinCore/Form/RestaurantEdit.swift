import Foundation

/// A change to a restaurant that exists: its new values, and the version they were made against.
///
/// ```swift
/// let edit = RestaurantEdit(original: shown, draft: form.draft)   // against the version on screen
/// let saved = try await backend.update(edit)                      // same record name and creation date
/// ```
///
/// The save sends the change tag of ``systemFields``: when the restaurant changed on another
/// machine since, it conflicts, and the user chooses (``overwriting(_:)`` saves against theirs).
package struct RestaurantEdit: Hashable, Sendable {
    /// The record name.
    package var id: String
    /// The system fields of the version the edit was made against (`nil`: not read from a store).
    package var systemFields: Data?
    package var draft: RestaurantDraft

    package init(id: String, systemFields: Data?, draft: RestaurantDraft) {
        self.id = id
        self.systemFields = systemFields
        self.draft = draft
    }

    /// The edit of `original`, as shown.
    package init(original: Restaurant, draft: RestaurantDraft) {
        self.init(id: original.id, systemFields: original.systemFields, draft: draft)
    }

    /// The same values, saved over `server`'s version (the user chose "overwrite with mine").
    package func overwriting(_ server: Restaurant) -> RestaurantEdit {
        RestaurantEdit(id: id, systemFields: server.systemFields ?? systemFields, draft: draft)
    }
}
