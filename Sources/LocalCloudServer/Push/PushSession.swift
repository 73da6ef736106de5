import LocalCloud

/// The credentials a push stream or push token was opened with, by digest: what must stay live for
/// it to keep delivering.
///
/// ```swift
/// let session = PushSession(container: "iCloud.A", environment: .development,
///                           apiTokenDigest: Secret.digest(apiToken), webAuthTokenDigest: Secret.digest(webAuthToken))
/// try await authenticator.isLive(session)     // false once signed out, expired or revoked
/// ```
///
/// Digests only: a push token carries them in its claims, and nothing here can sign a request in.
struct PushSession: Sendable, Hashable {
    var container: String
    var environment: Container.Environment
    /// SHA-256 (hex) of `ckAPIToken`; `nil` for a signed request.
    var apiTokenDigest: String?
    /// SHA-256 (hex) of `ckWebAuthToken`.
    var webAuthTokenDigest: String?
    /// The server-to-server key a signed request used.
    var keyID: String?

    /// Whether any credential is named: a session without one cannot be checked.
    var isEmpty: Bool { apiTokenDigest == nil && webAuthTokenDigest == nil && keyID == nil }
}

extension AuthenticationRequest {
    /// The session this request's credentials open.
    var pushSession: PushSession {
        PushSession(container: containerIdentifier, environment: environment,
                    apiTokenDigest: apiToken.flatMap { $0.isEmpty ? nil : Secret.digest($0.lowercased()) },
                    webAuthTokenDigest: webAuthToken.flatMap { $0.isEmpty ? nil : Secret.digest($0) },
                    keyID: keyID?.lowercased())
    }
}
