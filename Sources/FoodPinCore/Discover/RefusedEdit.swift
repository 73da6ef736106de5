import Foundation

/// An edit made offline that the server refused when it uploaded (a conflict with a change made on
/// another machine, or a permission error): why, and the server's version, to keep instead of the
/// edit or to save the edit over.
///
/// ```swift
/// if let refused = row.refusedEdit {            // the row shows the edit, marked "not uploaded"
///     form = RestaurantForm(resolving: row, services: services)   // k keeps theirs, o overwrites
/// }
/// ```
///
/// A class only so that ``Restaurant`` can hold one (a struct cannot contain itself); it is
/// immutable, so it is shared safely.
package final class RefusedEdit: Hashable, Sendable {
    /// The server's reason, as the row shows it.
    package let reason: String
    /// The restaurant as the server has it: its values, and the system fields a save over it needs.
    package let theirs: Restaurant
    /// The photo the edit put on the restaurant (a file in the local cache), `nil` when the edit kept it.
    package let myPhoto: URL?

    package init(reason: String, theirs: Restaurant, myPhoto: URL? = nil) {
        self.reason = reason
        self.theirs = theirs
        self.myPhoto = myPhoto
    }

    package static func == (lhs: RefusedEdit, rhs: RefusedEdit) -> Bool {
        lhs.reason == rhs.reason && lhs.theirs == rhs.theirs && lhs.myPhoto == rhs.myPhoto
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(reason)
        hasher.combine(theirs)
        hasher.combine(myPhoto)
    }
}
