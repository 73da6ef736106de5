import Foundation

/// A signed-in console administrator: the cookie's token is kept only as its digest.
package struct ConsoleSession: Sendable, Hashable {
    package var digest: String
    package var admin: String
    package var created: Date
    package var expires: Date
    package var ended: Date?

    package init(digest: String, admin: String, created: Date, expires: Date, ended: Date? = nil) {
        self.digest = digest
        self.admin = admin
        self.created = created
        self.expires = expires
        self.ended = ended
    }

    /// Not signed out and not expired.
    package func isLive(at now: Date) -> Bool { ended == nil && expires > now }
}
