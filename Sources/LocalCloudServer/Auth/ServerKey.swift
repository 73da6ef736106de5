import Foundation
import LocalCloud

/// A server-to-server key: the public half of a P-256 key pair whose private half signs requests.
package struct ServerKey: Sendable, Hashable {
    /// SHA-256 of the public key's DER encoding, lowercase hex (64 digits).
    package var id: String
    package var environment: Container.Environment
    /// The public key, PEM.
    package var publicKeyPEM: String
    package var name: String?
    package var created: Date
    package var revoked: Date?

    package init(id: String, environment: Container.Environment, publicKeyPEM: String, name: String?, created: Date, revoked: Date? = nil) {
        self.id = id
        self.environment = environment
        self.publicKeyPEM = publicKeyPEM
        self.name = name
        self.created = created
        self.revoked = revoked
    }
}
