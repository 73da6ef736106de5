import Foundation
import LocalCloud

/// What a node keeps beside the record store: accounts and tokens, outstanding upload URLs, and
/// the push tokens' key and long-poll positions, and the web console's administrators and sessions.
///
/// One node keeps them in its data directory and in memory (``local(dataDirectory:)``). Nodes
/// sharing a database keep them there too (`LocalCloudServerPostgres`), so no client depends on
/// reaching the node that issued its token, upload URL or push token.
package struct ServerState: Sendable {
    package var identity: any IdentityStore
    package var uploads: any UploadGrantStore
    /// Issues and checks push tokens; its cursors record where each token's long poll stopped.
    package var push: @Sendable () async throws -> PushTokens
    /// The web console's administrators, sessions and audit log.
    package var console: any ConsoleStore
    /// The request log and telemetry every node's console shows; `nil` on one node, whose console
    /// shows its own journal (in memory).
    package var requestLog: (any SharedRequestLog)?

    package init(identity: any IdentityStore, uploads: any UploadGrantStore, push: @escaping @Sendable () async throws -> PushTokens,
                 console: any ConsoleStore, requestLog: (any SharedRequestLog)? = nil) {
        self.identity = identity
        self.uploads = uploads
        self.push = push
        self.console = console
        self.requestLog = requestLog
    }

    /// The data directory's identity files, upload URLs in this process, the key file and `.push.sqlite`.
    package static func local(dataDirectory: URL) -> ServerState {
        ServerState(identity: SQLiteIdentityStore(dataDirectory: dataDirectory), uploads: MemoryUploadGrants(),
                    push: { try PushTokens.forDataDirectory(dataDirectory) },
                    console: SQLiteConsoleStore(dataDirectory: dataDirectory))
    }
}

/// The upload URLs `assets/upload` hands out: single-use, valid for an hour.
package protocol UploadGrantStore: Sendable {
    /// A new upload ID for the container's environment.
    func issue(container: String, environment: Container.Environment) async throws -> String
    /// Spends `id`: true once, for an unexpired grant of this container and environment.
    func redeem(_ id: String, container: String, environment: Container.Environment) async throws -> Bool
}

extension UploadGrantStore {
    /// An upload ID: 256 random bits in hex.
    package static func newGrantID() -> String {
        (0..<4).map { _ in String(UInt64.random(in: 0...UInt64.max), radix: 16) }.joined()
    }
}

/// Where each push token's webcourier long poll stopped.
package protocol WebcourierCursorStore: Sendable {
    func cursor(for token: String) async throws -> NotificationCursor?
    func set(_ cursor: NotificationCursor, for token: String) async throws
}
