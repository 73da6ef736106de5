import Foundation
import LocalCloud
import Logging

extension CloudServer {
    /// The server `localcloud serve` runs: tokens, accounts and keys from the data directory's
    /// identity stores (`<dataDir>/<container>/identity.sqlite`), web auth tokens lasting
    /// `configuration.tokenLifetime`.
    ///
    /// ```swift
    /// let server = CloudServer.open(configuration: configuration, logger: logger)
    /// try await server.run { url in print("listening on \(url)") }
    /// ```
    /// `state` is where accounts, tokens, upload URLs and push state live: by default the data
    /// directory and this process; for several nodes, their shared database.
    package static func open(configuration: ServerConfiguration, logger: Logger, state: ServerState? = nil) -> CloudServer {
        let state = state ?? .local(dataDirectory: configuration.dataDirectory)
        let authenticator = TokenAuthenticator(store: state.identity, tokenLifetime: configuration.tokenLifetime)
        return CloudServer(configuration: configuration, authenticator: authenticator, logger: logger, state: state)
    }

    /// The identity store behind the authenticator, when it has one (test doubles do not).
    var identity: TokenAuthenticator? { authenticator as? TokenAuthenticator }
}
