import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension Container {
    /// Everything a container needs, for apps and tests that do not want the process environment.
    ///
    /// ```swift
    /// let container = Container(configuration: .init(dataDirectory: tempDir, user: "alice"))
    /// ```
    public struct Configuration: Sendable, Hashable {
        public static let defaultIdentifier = "iCloud.FoodPin"

        public var containerIdentifier: String
        /// The root holding `<container>/<environment>.sqlite` and its assets.
        public var dataDirectory: URL
        /// The signed-in user; `nil` means no account (public database read-only).
        public var user: String?
        public var environment: Environment
        /// Added to every operation, as a network would, so spinners and lazy loading can be seen.
        public var simulatedLatency: Duration
        /// The largest asset file a save accepts.
        public var assetSizeLimit: Int64
        /// Whether queries need CloudKit's indexes ("Type is not marked indexable", "Field 'x' is not
        /// marked sortable"). On by default, as in CloudKit; tests of code that does not care may turn it off.
        public var checksIndexes = true
        /// The `localcloud serve` to talk to instead of a local file (CloudKit Web Services).
        public var serverURL: URL?
        /// The container's API token on that server (`ckAPIToken`).
        public var apiToken: String?
        /// The signed-in user's web auth token on that server (`ckWebAuthToken`).
        public var webAuthToken: String?
        /// On a server: whether creates and deletes made while it cannot be reached are queued and
        /// uploaded later (`true`), or fail with `networkUnavailable`/`networkFailure`.
        public var queuesWhenOffline = true
        /// On a server: the most bytes of downloaded assets kept in the local cache (least recently
        /// used go first; assets of queued changes are never evicted). `LOCALCLOUD_CACHE_MB`, default 500 MB.
        package var assetCacheLimit: Int64 = 500 * 1024 * 1024
        /// The time the store stamps records, zones and subscriptions with, the caches count uses by,
        /// and (on a server) the outbox's queue times are measured from; tests inject a ``ManualClock``.
        package var clock: WallClock = .system
        /// Opens a store that lives outside this module (PostgreSQL); `nil` means the SQLite file.
        package var storeOpener: StoreOpener?
        /// Where share URLs point: `{server}/share/` on `localcloud serve`; the embedded store's
        /// `localcloud://share/` when `nil` (``Container/shareMetadata(for:)`` resolves those locally).
        package var shareURLBase: String?

        public init(
            containerIdentifier: String = Configuration.defaultIdentifier,
            dataDirectory: URL,
            user: String?,
            environment: Environment = .development,
            simulatedLatency: Duration = .zero,
            assetSizeLimit: Int64 = 50 * 1024 * 1024
        ) {
            self.containerIdentifier = containerIdentifier
            self.dataDirectory = dataDirectory
            self.user = user.flatMap { $0.isEmpty ? nil : $0 }
            self.environment = environment
            self.simulatedLatency = simulatedLatency
            self.assetSizeLimit = assetSizeLimit
        }

        /// The configuration the process environment describes.
        ///
        /// `LOCALCLOUD_CONTAINER` (default `iCloud.FoodPin`), `LOCALCLOUD_HOME`, else
        /// `$XDG_DATA_HOME/localcloud`, else `~/.local/share/localcloud`; `LOCALCLOUD_USER`
        /// (empty means no account), else the login name; `LOCALCLOUD_ENVIRONMENT`; `LOCALCLOUD_LATENCY_MS`.
        /// `LOCALCLOUD_URL` makes it a remote container on that server, with `LOCALCLOUD_API_TOKEN`
        /// and `LOCALCLOUD_WEB_AUTH_TOKEN`.
        public static func fromEnvironment(
            identifier: String? = nil,
            environment env: [String: String] = ProcessInfo.processInfo.environment
        ) -> Configuration {
            let id = identifier ?? env["LOCALCLOUD_CONTAINER"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultIdentifier
            let dataDirectory: URL
            if let home = env["LOCALCLOUD_HOME"], !home.isEmpty {
                dataDirectory = URL(fileURLWithPath: home, isDirectory: true)
            } else if let xdg = env["XDG_DATA_HOME"], !xdg.isEmpty {
                dataDirectory = URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("localcloud", isDirectory: true)
            } else {
                let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
                dataDirectory = URL(fileURLWithPath: home, isDirectory: true)
                    .appendingPathComponent(".local/share/localcloud", isDirectory: true)
            }
            let user = env["LOCALCLOUD_USER"] ?? loginName(env)
            let environment = env["LOCALCLOUD_ENVIRONMENT"].flatMap(Environment.init(rawValue:)) ?? .development
            let latency = env["LOCALCLOUD_LATENCY_MS"].flatMap { Int($0) }.map { Duration.milliseconds(max(0, $0)) } ?? .zero
            var configuration = Configuration(containerIdentifier: id, dataDirectory: dataDirectory, user: user,
                                              environment: environment, simulatedLatency: latency)
            if let server = env["LOCALCLOUD_URL"], !server.isEmpty, let url = URL(string: server) {
                configuration.serverURL = url
                configuration.apiToken = env["LOCALCLOUD_API_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
                configuration.webAuthToken = env["LOCALCLOUD_WEB_AUTH_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
            }
            if let megabytes = env["LOCALCLOUD_CACHE_MB"].flatMap({ Int64($0) }), megabytes >= 0 {
                configuration.assetCacheLimit = megabytes * 1024 * 1024
            }
            return configuration
        }

        /// This configuration on the server `foodpin login` saved for its container (the newest
        /// sign-in), unless it has a server already or `LOCALCLOUD_URL` is set (empty: stay local).
        /// The user becomes the one who signed in.
        public func applyingSavedCredentials(environment env: [String: String] = ProcessInfo.processInfo.environment) -> Configuration {
            guard serverURL == nil, env["LOCALCLOUD_URL"] == nil,
                  let saved = try? CredentialsFile.standard(environment: env).latest(container: containerIdentifier),
                  let url = URL(string: saved.server) else { return self }
            var configuration = self
            configuration.serverURL = url
            configuration.apiToken = saved.apiToken
            configuration.webAuthToken = saved.webAuthToken
            configuration.environment = saved.environment
            configuration.user = saved.user
            return configuration
        }

        private static func loginName(_ env: [String: String]) -> String? {
            if let name = getlogin().map({ String(cString: $0) }), !name.isEmpty { return name }
            if let name = env["USER"] ?? env["LOGNAME"], !name.isEmpty { return name }
            if let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name { return String(cString: name) }
            return nil
        }

        /// `<dataDirectory>/<container>/<environment>.sqlite`
        var databaseURL: URL {
            containerDirectory.appendingPathComponent("\(environment.rawValue).sqlite")
        }

        /// `<dataDirectory>/<container>/<environment>-assets/ab/abcdef…`
        var assetsDirectory: URL {
            containerDirectory.appendingPathComponent("\(environment.rawValue)-assets", isDirectory: true)
        }

        var containerDirectory: URL {
            dataDirectory.appendingPathComponent(containerIdentifier, isDirectory: true)
        }
    }
}
