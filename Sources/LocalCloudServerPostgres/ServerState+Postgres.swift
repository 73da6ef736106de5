import Crypto
import Foundation
import LocalCloud
import LocalCloudServer
import Logging
import PostgresNIO
import Synchronization

extension ServerState {
    /// Accounts, tokens, upload URLs and push state in the database every node shares.
    ///
    /// ```swift
    /// let state = try await ServerState.postgres(client: client)   // client.run() driven by the caller
    /// let server = CloudServer.open(configuration: configuration, logger: logger, state: state)
    /// ```
    package static func postgres(client: PostgresClient, logger: Logger = Logger(label: "LocalCloud.server-state")) async throws -> ServerState {
        let identity = try await PostgresIdentityStore.open(client: client, logger: logger)
        let cursors = PostgresWebcourierCursors(client: client, logger: logger)
        let push = PushKeyLoader(client: client, logger: logger, cursors: cursors)
        return ServerState(identity: identity, uploads: PostgresUploadGrants(client: client, logger: logger),
                           push: { try await push.tokens() })
    }
}

/// The push tokens' HMAC key, made once per database (the first node to start inserts it, every
/// node reads the same one), then kept in memory.
final class PushKeyLoader: Sendable {
    let client: PostgresClient
    let logger: Logger
    let cursors: PostgresWebcourierCursors
    private let loaded = Mutex<PushTokens?>(nil)

    init(client: PostgresClient, logger: Logger, cursors: PostgresWebcourierCursors) {
        self.client = client
        self.logger = logger
        self.cursors = cursors
    }

    func tokens() async throws -> PushTokens {
        if let tokens = loaded.withLock({ $0 }) { return tokens }
        let fresh = Data((0..<32).map { _ in UInt8.random(in: .min ... .max) })
        var key = Data()
        do {
            try await client.query("""
                INSERT INTO localcloud_server_secrets (name, value) VALUES ('push-token-key', \(fresh)) ON CONFLICT (name) DO NOTHING
                """, logger: logger)
            for try await bytes in try await client.query(
                "SELECT value FROM localcloud_server_secrets WHERE name = 'push-token-key'", logger: logger).decode(Data.self) {
                key = bytes
            }
        } catch {
            throw PostgresFailure.cloudError(error, while: "loading the push token key")
        }
        guard key.count == 32 else { throw CloudError(.internalError, "The push token key in the database is damaged") }
        let tokens = PushTokens(key: SymmetricKey(data: key), cursors: cursors)
        loaded.withLock { $0 = tokens }
        return tokens
    }
}
