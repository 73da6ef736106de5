import Foundation

extension Container {
    /// Signs a user in on the server a configuration names, and returns the sign-in to keep.
    ///
    /// CloudKit JS's `setUpAuth()` then `whenUserSignsIn()`, with a password in place of Apple's
    /// sign-in page: `POST /auth/1/{container}/signin` gives a web auth token, then the current
    /// user's identity is read with it, so a wrong API token is found now rather than at the first
    /// query. Keep the result in a ``CredentialsFile``; ``Configuration/applyingSavedCredentials(environment:)``
    /// and ``Container/default()`` then use it.
    ///
    /// ```swift
    /// var configuration = Container.Configuration.fromEnvironment()
    /// configuration.serverURL = URL(string: "http://127.0.0.1:8642")
    /// configuration.apiToken = apiToken
    /// let signIn = try await Container.signIn(user: "alice", password: password, configuration: configuration)
    /// try CredentialsFile.standard().save(signIn)
    /// ```
    ///
    /// - Parameter configuration: its `serverURL`, `apiToken`, container and environment are used.
    /// - Throws: `invalidArguments` without a server or API token; `notAuthenticated` for a wrong user,
    ///   password or API token; `requestRateLimited` while the server locks the user out;
    ///   `networkUnavailable`/`networkFailure` when it cannot be reached. A sign-in is never retried,
    ///   so a wrong password counts once against the server's throttle.
    public static func signIn(user: String, password: String, configuration: Configuration) async throws -> SavedCredentials {
        guard let serverURL = configuration.serverURL else {
            throw CloudError(.invalidArguments, "Signing in needs a server: the configuration has no serverURL")
        }
        guard let apiToken = configuration.apiToken, !apiToken.isEmpty else {
            throw CloudError(.invalidArguments, "Signing in needs the container's API token (`localcloud tokens create` prints one)")
        }
        var endpoint = WebServicesEndpoint(serverURL: serverURL, containerIdentifier: configuration.containerIdentifier,
                                           environment: configuration.environment, apiToken: apiToken, webAuthToken: nil)
        let transport = HTTPTransport.fromEnvironment()
        let token = try await WebServicesClient(endpoint: endpoint, transport: transport).signIn(user: user, password: password)
        endpoint.webAuthToken = token
        _ = try await WebServicesClient(endpoint: endpoint, transport: transport)
            .database(.public, "users/current", body: nil, idempotent: true)
        return SavedCredentials(server: serverURL.absoluteString, container: configuration.containerIdentifier,
                                environment: configuration.environment, user: user, apiToken: apiToken, webAuthToken: token,
                                signedIn: configuration.clock.now)
    }

    /// Signs a user in on this container's server; see ``signIn(user:password:configuration:)``.
    ///
    /// This container keeps the credentials it was made with: make a new one from
    /// ``Configuration/applyingSavedCredentials(environment:)`` (after saving the result) or with the
    /// returned `webAuthToken` to act as the user.
    public func signIn(user: String, password: String) async throws -> SavedCredentials {
        try await Self.signIn(user: user, password: password, configuration: configuration)
    }

    /// Ends a sign-in on its server, as CloudKit JS's `signOut()`.
    ///
    /// `POST /auth/1/{container}/signout` revokes the web auth token there, which closes that sign-in's
    /// push streams and ends its push tokens. It gives up after 10 s (5 s to connect) and does not
    /// retry: signing out must not hang on a server that is gone. Forgetting the sign-in on this
    /// machine is the caller's (``CredentialsFile/remove(server:container:)``).
    ///
    /// - Returns: whether the server still had the sign-in live.
    /// - Throws: the ``CloudError`` of a server that refused or could not be reached; the token then
    ///   stays valid there until it expires or `localcloud users signout` ends it.
    @discardableResult
    public static func signOut(_ credentials: SavedCredentials) async throws -> Bool {
        guard let serverURL = URL(string: credentials.server) else {
            throw CloudError(.invalidArguments, "\(credentials.server) is not a URL")
        }
        let endpoint = WebServicesEndpoint(serverURL: serverURL, containerIdentifier: credentials.container,
                                           environment: credentials.environment, apiToken: credentials.apiToken,
                                           webAuthToken: credentials.webAuthToken)
        var transport = HTTPTransport.fromEnvironment()
        transport.timeouts.connect = .seconds(5)
        transport.timeouts.total = .seconds(10)
        return try await WebServicesClient(endpoint: endpoint, transport: transport, retry: .never).signOut()
    }
}
