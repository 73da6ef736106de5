import Foundation

/// One sign-in on a server, as `foodpin login` keeps it: the container's API token and the
/// signed-in user's web auth token, for one server and container.
///
/// ``Container/signIn(user:password:configuration:)`` returns one, ``CredentialsFile`` keeps them,
/// ``Container/Configuration/applyingSavedCredentials(environment:)`` and ``Container/default()``
/// use the newest, and ``Container/signOut(_:)`` ends one on its server. CloudKit JS keeps the same
/// two tokens (`ckAPIToken`, `ckWebAuthToken`) after its `setUpAuth`.
public struct SavedCredentials: Sendable, Hashable, Codable {
    /// The server's base URL, as given to `login` (`https://cloud.example:8642`).
    public var server: String
    public var container: String
    public var environment: Container.Environment
    public var user: String
    public var apiToken: String
    public var webAuthToken: String
    /// When the sign-in happened; the newest sign-in for a container is the one `Container.default()` uses.
    public var signedIn: Date

    public init(server: String, container: String, environment: Container.Environment, user: String,
                 apiToken: String, webAuthToken: String, signedIn: Date = Date()) {
        self.server = Self.normalized(server)
        self.container = container
        self.environment = environment
        self.user = user
        self.apiToken = apiToken
        self.webAuthToken = webAuthToken
        self.signedIn = signedIn
    }

    /// A server URL without a trailing slash, so `http://h:1/` and `http://h:1` are one key.
    public static func normalized(_ server: String) -> String {
        var text = server.trimmingCharacters(in: .whitespaces)
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}

/// `$XDG_CONFIG_HOME/localcloud/credentials.json` (else `~/.config/localcloud/credentials.json`):
/// saved credentials, one entry per server and container, readable only by their owner (0600).
///
/// The file is JSON, pretty-printed with sorted keys; dates are ISO 8601:
///
/// ```json
/// {
///   "credentials" : [
///     {
///       "apiToken" : "…",
///       "container" : "iCloud.FoodPin",
///       "environment" : "development",
///       "server" : "http://127.0.0.1:8642",
///       "signedIn" : "2026-11-26T23:30:00Z",
///       "user" : "alice",
///       "webAuthToken" : "…"
///     }
///   ],
///   "version" : 1
/// }
/// ```
///
/// ```swift
/// let file = CredentialsFile.standard()
/// try file.save(SavedCredentials(server: url, container: id, environment: .development, user: "alice", …))
/// let latest = try file.latest(container: id)
/// ```
///
/// Writes go to a new 0600 file that replaces the old one by rename: a crash leaves either the
/// old file or the new one, never half of one, and the tokens are never readable by others.
public struct CredentialsFile: Sendable {
    public let url: URL

    public init(url: URL) {
        self.url = url
    }

    public static func standard(environment env: [String: String] = ProcessInfo.processInfo.environment) -> CredentialsFile {
        let configHome: URL
        if let xdg = env["XDG_CONFIG_HOME"], !xdg.isEmpty {
            configHome = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            configHome = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".config", isDirectory: true)
        }
        return CredentialsFile(url: configHome.appendingPathComponent("localcloud/credentials.json"))
    }

    private struct Contents: Codable {
        var version = 1
        var credentials: [SavedCredentials] = []
    }

    /// Every saved entry; none when the file does not exist.
    /// - Throws: `invalidArguments` when the file is not what `login` writes.
    public func load() throws -> [SavedCredentials] {
        guard let data = FileManager.default.contents(atPath: url.path) else { return [] }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(Contents.self, from: data).credentials
        } catch {
            throw CloudError(.invalidArguments, "\(url.path) is not a credentials file: \(error.localizedDescription)")
        }
    }

    /// The entry for this server and container, if any.
    public func credentials(server: String, container: String) throws -> SavedCredentials? {
        let key = SavedCredentials.normalized(server)
        return try load().first { $0.server == key && $0.container == container }
    }

    /// The newest sign-in for the container, whatever the server.
    public func latest(container: String) throws -> SavedCredentials? {
        try load().filter { $0.container == container }.max { $0.signedIn < $1.signedIn }
    }

    /// Adds the entry, replacing the one for the same server and container.
    public func save(_ entry: SavedCredentials) throws {
        var all = try load().filter { !($0.server == entry.server && $0.container == entry.container) }
        all.append(entry)
        try write(all)
    }

    /// Removes the container's entries (for one server, or all of them); returns how many.
    @discardableResult
    public func remove(server: String?, container: String) throws -> Int {
        let all = try load()
        let key = server.map(SavedCredentials.normalized)
        let kept = all.filter { !($0.container == container && (key == nil || $0.server == key)) }
        guard kept.count != all.count else { return 0 }
        if kept.isEmpty {
            try FileManager.default.removeItem(at: url)
        } else {
            try write(kept)
        }
        return all.count - kept.count
    }

    private func write(_ entries: [SavedCredentials]) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(Contents(credentials: entries))
        let temporary = directory.appendingPathComponent(".credentials-\(UUID().uuidString).tmp")
        // Created 0600 (whatever the umask): the tokens are never readable by anyone else, not even briefly.
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw CloudError(.internalError, "Cannot write \(temporary.path): \(String(cString: strerror(errno)))")
        }
        var failure: String?
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(fd, raw.baseAddress?.advanced(by: offset), raw.count - offset)
                if written <= 0 {
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += written
            }
        }
        if failure == nil, fchmod(fd, 0o600) != 0 || fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        close(fd)
        if failure == nil, rename(temporary.path, url.path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary.path)
            throw CloudError(.internalError, "Cannot write \(url.path): \(failure)")
        }
    }
}
