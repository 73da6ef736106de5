import Foundation

/// A change to a list made while the server was away that the server refused once it came back
/// (the owner stopped sharing the list, or made it read-only): it stays in the outbox, marked,
/// so it is never lost in silence, and the app says what was not saved and why.
package struct RefusedListChange: Hashable, Sendable {
    /// The entry's restaurant, when the change was a save (a removal carries no name).
    package var restaurant: String?
    /// Whether the change removed an entry.
    package var isRemoval: Bool
    /// The list's owner, for a list shared with me; `nil` for one of mine.
    package var owner: String?
    /// The server's reason, as it said it.
    package var reason: String

    /// One line for the terminal, e.g. `“Addis Injera” was not saved to alice's list: the server
    /// refused it (Zone not found …); it stays in the outbox`.
    package var message: String {
        let list = owner.map { "\(TextSanitizer.line($0))'s list" } ?? "your list"
        let what = restaurant.map { "“\(TextSanitizer.line($0))”" } ?? "An entry"
        let verb = isRemoval ? "was not removed from" : "was not saved to"
        return "\(what) \(verb) \(list): the server refused it (\(TextSanitizer.line(reason))); it stays in the outbox"
    }
}
