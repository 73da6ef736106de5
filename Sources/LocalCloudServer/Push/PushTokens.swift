import Crypto
import Foundation
import LocalCloud
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The APNs-style tokens `tokens/create` hands out: stateless, signed with a key kept in the data
/// directory, so any server (or a restarted one) over that directory accepts them.
///
/// ```swift
/// let tokens = try PushTokens.forDataDirectory(dataDirectory)
/// let token = tokens.issue(PushTokens.Claims(container: "iCloud.A", environment: .development, user: "alice", apnsEnvironment: "development"))
/// let claims = try tokens.verify(token)        // who the token delivers to
/// ```
///
/// A token is `base64url(claims JSON).base64url(HMAC-SHA256(key, claims JSON))`; verification is a
/// constant-time MAC check. The key file (`.push-token-key`, 32 random bytes, mode 0600) cannot
/// collide with a container, whose identifiers never start with a dot.
package final class PushTokens: Sendable {
    package struct Claims: Sendable, Hashable {
        var container: String
        var environment: Container.Environment
        var user: String
        var apnsEnvironment: String
        /// The change-log position when the token was made: its first poll starts there.
        var startSequence: Int64?
        /// The credentials (by digest) the token was made with: it delivers only while they are
        /// live, so signing out ends it. Tokens made before this was recorded have none and are refused.
        var session: PushSession?
    }

    private let key: SymmetricKey
    /// Where each token's long-poll stopped.
    let cursors: any WebcourierCursorStore

    /// Tokens signed with `key` (32 bytes, the same on every node that must accept them).
    package init(key: SymmetricKey, cursors: any WebcourierCursorStore) {
        self.key = key
        self.cursors = cursors
    }

    static let keyFileName = ".push-token-key"
    private static let byDirectory = Mutex<[String: PushTokens]>([:])

    /// The tokens of a data directory, its key created on first use (atomically, so servers racing agree).
    static func forDataDirectory(_ directory: URL) throws -> PushTokens {
        let path = directory.standardizedFileURL.path
        return try byDirectory.withLock { cache in
            if let tokens = cache[path] { return tokens }
            let tokens = try load(from: directory)
            cache[path] = tokens
            return tokens
        }
    }

    /// The tokens of a data directory, reading (or creating) its key; not cached.
    static func load(from directory: URL) throws -> PushTokens {
        PushTokens(key: SymmetricKey(data: try loadOrCreateKey(in: directory)), cursors: try WebcourierCursors(directory: directory))
    }

    private static func loadOrCreateKey(in directory: URL) throws -> [UInt8] {
        let url = directory.appendingPathComponent(keyFileName)
        if let bytes = try? Data(contentsOf: url), bytes.count == 32 { return Array(bytes) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let fresh = (0..<32).map { _ in UInt8.random(in: .min ... .max) }
        let temporary = directory.appendingPathComponent("\(keyFileName).\(UUID().uuidString)")
        try Data(fresh).write(to: temporary, options: .atomic)
        chmod(temporary.path, 0o600)
        defer { try? FileManager.default.removeItem(at: temporary) }
        // link(2) fails if the key exists: whoever linked first wins, everyone reads that key.
        if link(temporary.path, url.path) != 0 && errno != EEXIST {
            throw CloudError(.internalError, "Cannot create the push token key in the data directory")
        }
        let bytes = try Data(contentsOf: url)
        guard bytes.count == 32 else { throw CloudError(.internalError, "The push token key in the data directory is damaged") }
        return Array(bytes)
    }

    /// A signed token for `claims`, labelled with when it was issued (`issued`: the server's clock).
    func issue(_ claims: Claims, at issued: Date = WallClock.system.now) -> String {
        var json: [String: JSONValue] = [
            "c": .string(claims.container), "e": .string(claims.environment == .production ? "production" : "development"),
            "u": .string(claims.user), "a": .string(claims.apnsEnvironment),
            "n": .string(UUID().uuidString), "t": .int(Int64(issued.timeIntervalSince1970)),
        ]
        if let start = claims.startSequence { json["s"] = .int(start) }
        if let session = claims.session {
            if let digest = session.apiTokenDigest { json["k"] = .string(digest) }
            if let digest = session.webAuthTokenDigest { json["w"] = .string(digest) }
            if let keyID = session.keyID { json["x"] = .string(keyID) }
        }
        let payload = JSONValue.object(json).bytes
        let mac = HMAC<SHA256>.authenticationCode(for: payload, using: key)
        return Base64URL.encode(payload) + "." + Base64URL.encode(Array(mac))
    }

    /// - Throws: BAD_REQUEST for a token this server's key did not sign.
    func verify(_ token: String) throws -> Claims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count < 2048, parts.count == 2, let payload = Base64URL.decode(parts[0]).map(Array.init), let mac = Base64URL.decode(parts[1]).map(Array.init),
              HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: payload, using: key),
              let json = try? JSONValue.parse(payload),
              let container = json["c"]?.stringValue, let environment = json["e"]?.stringValue,
              let user = json["u"]?.stringValue, let apns = json["a"]?.stringValue
        else {
            throw ServerError(.badRequest, "apnsToken is not a token this server issued")
        }
        let environmentValue: Container.Environment = environment == "production" ? .production : .development
        var session: PushSession? = PushSession(container: container, environment: environmentValue,
                                                apiTokenDigest: json["k"]?.stringValue, webAuthTokenDigest: json["w"]?.stringValue,
                                                keyID: json["x"]?.stringValue)
        if session?.isEmpty == true { session = nil }
        return Claims(container: container, environment: environmentValue,
                      user: user, apnsEnvironment: apns, startSequence: json["s"]?.int64Value, session: session)
    }
}
