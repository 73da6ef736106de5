import Foundation

/// One list of restaurants as the Lists screen and `foodpin lists` show it.
///
/// ```swift
/// let friday = RestaurantListSummary(ref: ref, name: "Friday", count: 3, sharedWith: ["bob"])
/// friday.isMine   // true: it lives in this user's private database
/// ```
package struct RestaurantListSummary: Hashable, Sendable {
    package var ref: RestaurantListRef
    package var name: String
    /// How many entries it has.
    package var count: Int
    /// Mine: the people it is shared with (user names; `link` for a public link).
    package var sharedWith: [String] = []
    /// Shared with me: whose list it is (user name).
    package var owner: String = ""
    /// Whether this user may add and remove entries (always, on their own lists).
    package var canWrite = true

    package init(ref: RestaurantListRef, name: String, count: Int, sharedWith: [String] = [], owner: String = "",
                 canWrite: Bool = true) {
        self.ref = ref
        self.name = name
        self.count = count
        self.sharedWith = sharedWith
        self.owner = owner
        self.canWrite = canWrite
    }

    package var isMine: Bool { ref.ownerName == nil }

    /// `read-write` or `read-only`, as `foodpin lists` prints it.
    package var permission: String { canWrite ? "read-write" : "read-only" }
}

/// Where a list lives: its record name and zone, in the private database (mine) or the shared one.
package struct RestaurantListRef: Hashable, Sendable {
    package var recordName: String
    /// The zone's owner as the shared database names it; `nil` for the user's own list.
    package var ownerName: String?
    package var zoneName: String

    package init(recordName: String, ownerName: String? = nil, zoneName: String = RestaurantListRecord.zoneName) {
        self.recordName = recordName
        self.ownerName = ownerName
        self.zoneName = zoneName
    }
}

/// Both sections of the Lists screen.
package struct RestaurantListsOverview: Hashable, Sendable {
    package var mine: [RestaurantListSummary]
    package var sharedWithMe: [RestaurantListSummary]
    /// Read from the local cache while the server is away.
    package var isFromCache = false
    /// Changes made while away that the server refused: they stay in the outbox, and the screen says so.
    package var refused: [RefusedListChange] = []

    package init(mine: [RestaurantListSummary] = [], sharedWithMe: [RestaurantListSummary] = []) {
        self.mine = mine
        self.sharedWithMe = sharedWithMe
    }

    /// Every list, mine first: the order the screen's selection moves through.
    package var all: [RestaurantListSummary] { mine + sharedWithMe }
}
