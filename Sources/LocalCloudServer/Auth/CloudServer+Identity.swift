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
    package static func open(configuration: ServerConfiguration, logger: Logger) -> CloudServer {
        let store = configuration.identityStore ?? SQLiteIdentityStore(dataDirectory: configuration.dataDirectory)
        let authenticator = TokenAuthenticator(store: store, tokenLifetime: configuration.tokenLifetime)
        return CloudServer(configuration: configuration, authenticator: authenticator, logger: logger)
    }

    /// The identity store behind the authenticator, when it has one (test doubles do not).
    var identity: TokenAuthenticator? { authenticator as? TokenAuthenticator }
}
