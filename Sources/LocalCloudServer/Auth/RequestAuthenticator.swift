import Foundation
import LocalCloud

/// What a request presents to prove who it is: the query parameters and signature headers
/// CloudKit Web Services defines.
struct AuthenticationRequest: Sendable {
    var containerIdentifier: String
    var environment: Container.Environment
    /// `ckAPIToken`
    var apiToken: String?
    /// `ckWebAuthToken`
    var webAuthToken: String?
    /// `X-Apple-CloudKit-Request-KeyID`, `-ISO8601Date`, `-SignatureV1`
    var keyID: String?
    var isoDate: String?
    var signature: String?
    /// The URL path the signature covers (`/database/1/…`, without the query string).
    var subpath: String
    /// The raw request body the signature's hash covers.
    var body: [UInt8]
}

/// Checks a request's credentials.
///
/// - Throws: `ServerError(.authenticationFailed)` for a missing, unknown, revoked or expired
///   token or a bad signature. A valid API token without a user is ``RequestIdentity/anonymous``.
protocol RequestAuthenticator: Sendable {
    func authenticate(_ request: AuthenticationRequest) async throws -> RequestIdentity
    /// Whether the credentials a push stream or push token was opened with are still live: `false`
    /// once the user signed out, or a token expired or was revoked. Push ends when it turns false.
    func isLive(_ session: PushSession) async throws -> Bool
    /// Until when the session's credentials stay live if nothing is revoked: the web auth token's
    /// expiry, `.distantFuture` when nothing expires, `nil` when they are not live now.
    func liveUntil(_ session: PushSession) async throws -> Date?
    /// This authenticator's clock, which ``liveUntil(_:)`` is measured against.
    var clock: WallClock { get }
    /// Rings when some credential may have ended (see ``CredentialChanges``); `nil` when none can.
    var credentialChanges: CredentialChanges? { get }
    /// Asks to hear other processes' and nodes' changes to the container's credentials too.
    func watchCredentialChanges(container: String)
}

extension RequestAuthenticator {
    /// Credentials that are never revoked (fixed test and benchmark credentials) stay live.
    func isLive(_ session: PushSession) async throws -> Bool { try await liveUntil(session) != nil }
    func liveUntil(_ session: PushSession) async throws -> Date? { .distantFuture }
    var clock: WallClock { .system }
    var credentialChanges: CredentialChanges? { nil }
    func watchCredentialChanges(container: String) {}
}
