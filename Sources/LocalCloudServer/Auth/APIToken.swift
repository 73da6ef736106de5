import Foundation
import LocalCloud

/// An API token as stored: its digest, never the token.
package struct APIToken: Sendable, Hashable {
    /// SHA-256 of the token, lowercase hex.
    package var digest: String
    package var environment: Container.Environment
    package var name: String?
    package var created: Date
    package var revoked: Date?

    package init(digest: String, environment: Container.Environment, name: String?, created: Date, revoked: Date? = nil) {
        self.digest = digest
        self.environment = environment
        self.name = name
        self.created = created
        self.revoked = revoked
    }

    /// What `tokens list` shows and `tokens revoke` accepts: the digest's first 12 hex digits,
    /// which name the token without revealing it.
    package var id: String { String(digest.prefix(12)) }
}
