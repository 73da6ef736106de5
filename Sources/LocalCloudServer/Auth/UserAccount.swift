import Foundation
import LocalCloud

/// An account that can sign in to a container.
package struct UserAccount: Sendable, Hashable {
    package var name: String
    package var created: Date
    /// Listed by `users/discover`.
    package var discoverable: Bool
    /// A disabled account cannot sign in, and its web auth tokens were revoked when it was disabled.
    package var disabled: Bool
    /// The optional email address participants are looked up by (`users/lookup/email`), stored lowercased.
    package var email: String?

    package init(name: String, created: Date, discoverable: Bool = true, disabled: Bool = false, email: String? = nil) {
        self.name = name
        self.created = created
        self.discoverable = discoverable
        self.disabled = disabled
        self.email = email
    }

    /// An email address as accounts keep it: trimmed and lowercased.
    ///
    /// - Throws: `CloudError(.invalidArguments)` for text that is not an address (one `@`, no spaces
    ///   or control characters, at most 254 bytes).
    package static func normalizedEmail(_ text: String) throws -> String {
        let email = text.trimmingCharacters(in: .whitespaces).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
              !email.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) else {
            throw CloudError(.invalidArguments, "Invalid email address '\(String(text.prefix(80)))': use name@example.com")
        }
        return email
    }

    /// The account's user record name, as records name their creator (`_alice`).
    package var userRecordName: String { "_" + name }
}
