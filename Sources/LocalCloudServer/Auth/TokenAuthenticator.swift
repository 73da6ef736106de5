import Foundation
import LocalCloud

/// The real authenticator: API tokens, web auth tokens and server-to-server signatures, checked
/// against an ``IdentityStore`` on every request (nothing cached, so revocation takes effect at once).
///
/// - A request signed with a server-to-server key (all three `X-Apple-CloudKit-Request-*` headers)
///   acts as the developer (``RequestIdentity/Kind/developer(keyID:)``), who may do everything in the
///   public database, as in CloudKit. It needs no `ckAPIToken`. A signed request for the private or
///   shared database is refused with ACCESS_DENIED: a key belongs to no user.
/// - Otherwise `ckAPIToken` must be a live API token of the container and environment. With a live
///   `ckWebAuthToken` the request acts as that account; without one it is anonymous.
/// - Anything else is AUTHENTICATION_FAILED (401).
struct TokenAuthenticator: RequestAuthenticator {
    let store: any IdentityStore
    /// How long a web auth token from `signin` lasts.
    let tokenLifetime: Duration
    let hasher: PasswordHasher
    let throttle: SigninThrottle
    /// What tokens' expiry, sign-in stamps and the request-date check are measured against.
    let clock: WallClock

    init(store: any IdentityStore, tokenLifetime: Duration = .seconds(14 * 24 * 3600), hasher: PasswordHasher = .standard,
         throttle: SigninThrottle = SigninThrottle(), clock: WallClock = .system) {
        self.store = store
        self.tokenLifetime = tokenLifetime
        self.hasher = hasher
        self.throttle = throttle
        self.clock = clock
    }

    func now() -> Date { clock.now }

    func authenticate(_ request: AuthenticationRequest) async throws -> RequestIdentity {
        if request.keyID != nil || request.isoDate != nil || request.signature != nil {
            return try await authenticateSigned(request)
        }
        guard let apiToken = request.apiToken, !apiToken.isEmpty else {
            throw ServerError(.authenticationFailed, "Missing ckAPIToken (or a server-to-server signature)")
        }
        guard try await store.isLiveAPIToken(apiToken, container: request.containerIdentifier, environment: request.environment) else {
            throw ServerError(.authenticationFailed, "Unknown or revoked API token for this container and environment")
        }
        guard let webAuthToken = request.webAuthToken, !webAuthToken.isEmpty else { return .anonymous }
        guard let user = try await store.signedInUser(webAuthToken: webAuthToken, container: request.containerIdentifier, now: now()) else {
            throw ServerError(.authenticationFailed, "Unknown, expired or revoked web auth token: sign in again")
        }
        return RequestIdentity(kind: .user(user))
    }

    /// Every credential the session names is still live: the API token for its environment, the web
    /// auth token (not revoked, not expired), the server-to-server key.
    func isLive(_ session: PushSession) async throws -> Bool {
        try await liveUntil(session) != nil
    }

    /// The web auth token's expiry (`.distantFuture` without one) while every credential is live.
    func liveUntil(_ session: PushSession) async throws -> Date? {
        guard !session.isEmpty else { return nil }
        var until = Date.distantFuture
        if let digest = session.apiTokenDigest {
            guard let token = try await store.apiToken(digest: digest, container: session.container),
                  token.revoked == nil, token.environment == session.environment else { return nil }
        }
        if let digest = session.webAuthTokenDigest {
            guard let token = try await store.webAuthToken(digest: digest, container: session.container),
                  token.isLive(at: now()) else { return nil }
            until = token.expires
        }
        if let keyID = session.keyID {
            guard let key = try await store.serverKey(id: keyID, container: session.container),
                  key.revoked == nil, key.environment == session.environment else { return nil }
        }
        return until
    }

    var credentialChanges: CredentialChanges? { store.credentialChanges }

    func watchCredentialChanges(container: String) {
        store.watchCredentialChanges(container: container)
    }

    private func authenticateSigned(_ request: AuthenticationRequest) async throws -> RequestIdentity {
        guard let keyID = request.keyID, let isoDate = request.isoDate, let signature = request.signature else {
            throw ServerError(.authenticationFailed,
                              "A signed request needs X-Apple-CloudKit-Request-KeyID, -ISO8601Date and -SignatureV1")
        }
        guard let date = RequestSignature.date(isoDate) else {
            throw ServerError(.authenticationFailed, "X-Apple-CloudKit-Request-ISO8601Date is not an ISO 8601 date")
        }
        guard abs(date.timeIntervalSince(now())) <= RequestSignature.allowedSkew else {
            throw ServerError(.authenticationFailed, "X-Apple-CloudKit-Request-ISO8601Date is more than 10 minutes off the server's clock")
        }
        guard let key = try await store.liveServerKey(id: keyID, container: request.containerIdentifier, environment: request.environment) else {
            throw ServerError(.authenticationFailed, "Unknown or revoked server-to-server key for this container and environment")
        }
        guard RequestSignature.isValid(signature, key: key, date: isoDate, body: request.body, subpath: request.subpath) else {
            throw ServerError(.authenticationFailed, "The request signature does not match its date, body and path")
        }
        // `/database/1/{container}/{environment}/{database}/…`: a key reaches the public database only.
        let segments = request.subpath.split(separator: "/", omittingEmptySubsequences: true)
        if segments.count > 4, segments[4] == "private" || segments[4] == "shared" {
            throw ServerError(.accessDenied, "Server-to-server keys reach the public database only; the \(segments[4]) database needs a signed-in user")
        }
        return RequestIdentity(kind: .developer(keyID: keyID.lowercased()))
    }
}
