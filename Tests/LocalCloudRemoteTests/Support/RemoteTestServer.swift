import Foundation
import Hummingbird
import LocalCloud
import Logging
@testable import LocalCloudServer

/// A real `localcloud serve` in this process, on a free loopback port, with real accounts and
/// tokens (the identity store the command uses), over a temporary data directory.
final class RemoteTestServer: Sendable {
    static let container = "iCloud.com.example.Remote"
    static let password = "correct horse battery staple"

    let baseURL: URL
    let dataDirectory: URL
    let apiToken: String
    /// Web auth tokens of the accounts made at start (alice and bob).
    let webAuthTokens: [String: String]
    private let task: Task<Void, any Error>

    /// Starts a server and waits (with a deadline) until it accepts connections. With `previous`
    /// (stopped), the same server comes back on the same port over the same data, with the same tokens.
    static func start(restarting previous: RemoteTestServer? = nil,
                      tls: (certificate: String, key: String)? = nil) async throws -> RemoteTestServer {
        let directory = previous?.dataDirectory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("lcr-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = ServerConfiguration(dataDirectory: directory)
        configuration.port = previous?.port ?? 0
        configuration.tlsCertificatePath = tls?.certificate
        configuration.tlsKeyPath = tls?.key
        let store = SQLiteIdentityStore(dataDirectory: directory)
        let hasher = PasswordHasher(cost: 4)
        let authenticator = TokenAuthenticator(store: store, hasher: hasher, throttle: SigninThrottle())
        var logger = Logger(label: "remote-test-server")
        logger.logLevel = .critical

        let apiToken: String
        var webAuthTokens: [String: String] = [:]
        if let previous {
            apiToken = previous.apiToken
            webAuthTokens = previous.webAuthTokens
        } else {
            let schema = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../../Assets/FoodPin.ckdb").standardized, encoding: .utf8)
            let seed = Container(configuration: .init(containerIdentifier: container, dataDirectory: directory, user: nil))
            _ = try seed.importSchema(Schema(ckdb: schema))
            apiToken = try await store.createAPIToken(container: container, environment: .development)
            for name in ["alice", "bob"] {
                _ = try await store.addUser(name, password: password, container: container, hasher: hasher)
                webAuthTokens[name] = try await store.issueWebAuthToken(user: name, container: container, lifetime: .seconds(3600))
            }
        }

        let server = CloudServer(configuration: configuration, authenticator: authenticator, logger: logger)
        let (urls, continuation) = AsyncStream.makeStream(of: String.self)
        let app = try server.makeApplication { url in continuation.yield(url) }
        let task = Task { try await app.run() }
        let url = try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask { await urls.first { _ in true } }
            group.addTask {
                try await Task.sleep(for: .seconds(30))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let url, let baseURL = URL(string: url) else {
            task.cancel()
            throw CloudError(.internalError, "The test server did not start within 30 s")
        }
        return RemoteTestServer(baseURL: baseURL, dataDirectory: directory, apiToken: apiToken,
                                webAuthTokens: webAuthTokens, task: task)
    }

    private init(baseURL: URL, dataDirectory: URL, apiToken: String, webAuthTokens: [String: String],
                 task: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.dataDirectory = dataDirectory
        self.apiToken = apiToken
        self.webAuthTokens = webAuthTokens
        self.task = task
    }

    var port: Int { baseURL.port ?? 0 }

    /// The endpoint a client of this server uses, signed in as `user` (or anonymous).
    func endpoint(user: String? = "alice") -> WebServicesEndpoint {
        WebServicesEndpoint(serverURL: baseURL, containerIdentifier: Self.container, environment: .development,
                            apiToken: apiToken, webAuthToken: user.flatMap { webAuthTokens[$0] })
    }

    /// Stops serving; the data directory stays (for a restart) until ``removeData()``.
    func stop() async {
        task.cancel()
        _ = try? await task.value
    }

    func removeData() {
        try? FileManager.default.removeItem(at: dataDirectory)
    }
}
