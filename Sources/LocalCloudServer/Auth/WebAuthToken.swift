import Foundation

/// A web auth token as stored: its digest, the account it signs in, and how long it lasts.
package struct WebAuthToken: Sendable, Hashable {
    /// SHA-256 of the token, lowercase hex.
    package var digest: String
    package var user: String
    package var created: Date
    package var expires: Date
    package var revoked: Date?

    package init(digest: String, user: String, created: Date, expires: Date, revoked: Date? = nil) {
        self.digest = digest
        self.user = user
        self.created = created
        self.expires = expires
        self.revoked = revoked
    }

    package func isLive(at date: Date) -> Bool { revoked == nil && date < expires }
}
