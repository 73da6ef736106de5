import Foundation

/// Where a change fetch stopped, like `CKServerChangeToken`: pass it to the next fetch to get only what changed since.
///
/// ```swift
/// let changes = try await db.recordZoneChanges(inZoneWith: .default, since: savedToken)
/// savedToken = changes.changeToken
/// try savedToken.data.write(to: tokenFile)          // survives restarts
/// let restored = try ServerChangeToken(data: Data(contentsOf: tokenFile))
/// ```
///
/// Opaque to callers. It holds the change-log sequence it has seen up to and the log's epoch
/// (a random ID of the database file), so a token from another file, or one older than a
/// compaction, fails with `changeTokenExpired` instead of silently missing changes.
public struct ServerChangeToken: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The database file's change-log identity.
    package let epoch: String
    /// Every change up to this sequence has been delivered (or is in the snapshot being delivered).
    package let sequence: Int64
    /// During a first fetch (no token), the last record row delivered; `nil` once reading the log.
    package let snapshotAfterRowID: Int64?
    /// A remote container's token: the server's `syncToken`, opaque here.
    let syncToken: String?
    /// On the shared database: the zones (`owner/zone`) the user saw when the token was made, so
    /// the next call can report the ones they lost as deleted.
    package var sharedZones: [String]?

    package init(epoch: String, sequence: Int64, snapshotAfterRowID: Int64? = nil) {
        self.epoch = epoch
        self.sequence = sequence
        self.snapshotAfterRowID = snapshotAfterRowID
        syncToken = nil
    }

    /// A server's `syncToken`, for a remote container.
    package init(syncToken: String) {
        epoch = ""
        sequence = 0
        snapshotAfterRowID = nil
        self.syncToken = syncToken
    }

    /// The server's `syncToken`, when this token came from one.
    package var wireSyncToken: String? { syncToken }

    /// The token as bytes, to store anywhere.
    ///
    /// Keys sorted: the same position is the same bytes in every process (a server restarted on
    /// another hash seed must not hand a client a "new" token for where it already was).
    public var data: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(self)) ?? Data()
    }

    /// A token from ``data``.
    /// - Throws: `invalidArguments` when the bytes are not a token.
    public init(data: Data) throws {
        do {
            self = try JSONDecoder().decode(ServerChangeToken.self, from: data)
        } catch {
            throw CloudError(.invalidArguments, "Not a server change token", cause: error)
        }
    }

    public var description: String {
        snapshotAfterRowID.map { "<ServerChangeToken \(epoch):\(sequence) snapshot>\($0)>" } ?? "<ServerChangeToken \(epoch):\(sequence)>"
    }
}
