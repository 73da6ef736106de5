import Foundation

/// An account that can sign in to a container.
package struct UserAccount: Sendable, Hashable {
    package var name: String
    package var created: Date
    /// Listed by `users/discover`.
    package var discoverable: Bool
    /// A disabled account cannot sign in, and its web auth tokens were revoked when it was disabled.
    package var disabled: Bool

    package init(name: String, created: Date, discoverable: Bool = true, disabled: Bool = false) {
        self.name = name
        self.created = created
        self.discoverable = discoverable
        self.disabled = disabled
    }

    /// The account's user record name, as records name their creator (`_alice`).
    package var userRecordName: String { "_" + name }
}
