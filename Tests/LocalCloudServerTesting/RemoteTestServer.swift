import Foundation
import LocalCloud
import LocalCloudServer
import Logging
import Synchronization

/// A real `localcloud serve` in this process (the same ``CloudServer/open(configuration:logger:)``
/// the command runs), on a free loopback port over a temporary data directory, with real
/// accounts and tokens in its identity store. For the remote store's tests and the conformance suite.
package final class RemoteTestServer: Sendable {
    package static let password = "correct horse battery staple"

    package let baseURL: URL
    package let dataDirectory: URL
    package let container: String
    package let apiToken: String
    private let task: Task<Void, any Error>
    /// Asks the server for a graceful shutdown (cancelling its task can trap in NIO).
    private let stopRequester: AsyncStream<Void>.Continuation

    /// Starts a server and waits (with a deadline) until it accepts connections. With `previous`
    /// (stopped), the same server comes back on the same port over the same data, with the same tokens.
    ///
    /// - Parameters:
    ///   - schema: `.ckdb` text imported into a new server's container.
    ///   - users: accounts made on a new server (password ``password``).
    package static func start(
        container: String = "iCloud.com.example.Remote", schema: String? = nil, users: [String] = ["alice", "bob"],
        restarting previous: RemoteTestServer? = nil, tls: (certificate: String, key: String)? = nil
    ) async throws -> RemoteTestServer {
        let directory = previous?.dataDirectory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("lcr-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = ServerConfiguration(dataDirectory: directory)
        // Below the kernel's ephemeral range (32768–60999): a port chosen there (port 0) can be
        // taken, once this server stops, by any client connection's local end, and a restart
        // on the same port would then fail with "Address already in use".
        configuration.port = previous?.port ?? PortPlaceholder.claimNewPort()
        configuration.tlsCertificatePath = tls?.certificate
        configuration.tlsKeyPath = tls?.key
        let container = previous?.container ?? container
        let apiToken: String
        if let previous {
            apiToken = previous.apiToken
        } else {
            let text = try schema ?? String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Assets/FoodPin.ckdb").standardized, encoding: .utf8)
            let seed = Container(configuration: .init(containerIdentifier: container, dataDirectory: directory, user: nil))
            _ = try await seed.importSchema(Schema(ckdb: text))
            let identity = SQLiteIdentityStore(dataDirectory: directory)
            apiToken = try await identity.createAPIToken(container: container, environment: .development)
            for name in users {
                _ = try await identity.addUser(name, password: password, container: container, hasher: PasswordHasher(cost: 4))
            }
        }
        var logger = Logger(label: "remote-test-server")
        logger.logLevel = .critical
        if let previous { PortPlaceholder.release(previous.port) }
        let deadline = ContinuousClock.now + .seconds(30)
        var launched: (url: String, task: Task<Void, any Error>, stopRequester: AsyncStream<Void>.Continuation)?
        var lastFailure = "no answer"
        while launched == nil && ContinuousClock.now < deadline {
            let server = CloudServer.open(configuration: configuration, logger: logger)
            let (urls, continuation) = AsyncStream.makeStream(of: String.self)
            let (stopRequests, stopRequester) = AsyncStream.makeStream(of: Void.self)
            let task = Task {
                // A failed start (the port is still held) ends the stream: no waiting for the deadline.
                defer { continuation.finish() }
                try await server.run(onListening: { url in continuation.yield(url) },
                                     until: { for await _ in stopRequests { return } })
            }
            let url = try await withThrowingTaskGroup(of: String?.self) { group in
                group.addTask { await urls.first { _ in true } }
                group.addTask {
                    try await Task.sleep(until: deadline)
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
            if let url {
                launched = (url, task, stopRequester)
            } else {
                stopRequester.yield()
                if case .failure(let error) = await task.result { lastFailure = String(describing: error) }
                // A restart waits for its port: a new server that took it meanwhile gives it back.
                // A new server tries another port.
                if previous == nil {
                    PortPlaceholder.unclaim(configuration.port)
                    configuration.port = PortPlaceholder.claimNewPort()
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        guard let launched, let baseURL = URL(string: launched.url) else {
            throw CloudError(.internalError, "The test server did not start within 30 s (port \(configuration.port), restart: \(previous != nil)): \(lastFailure)")
        }
        let (task, stopRequester) = (launched.task, launched.stopRequester)
        let started = RemoteTestServer(baseURL: baseURL, dataDirectory: directory, container: container, apiToken: apiToken, task: task,
                                       stopRequester: stopRequester)
        return started
    }

    private init(baseURL: URL, dataDirectory: URL, container: String, apiToken: String, task: Task<Void, any Error>,
                 stopRequester: AsyncStream<Void>.Continuation) {
        self.baseURL = baseURL
        self.dataDirectory = dataDirectory
        self.container = container
        self.apiToken = apiToken
        self.task = task
        self.stopRequester = stopRequester
    }

    package var port: Int { baseURL.port ?? 0 }

    /// A new web auth token for `user`, making the account first when it does not exist.
    package func webAuthToken(for user: String, container: String? = nil) async throws -> String {
        let container = container ?? self.container
        let identity = SQLiteIdentityStore(dataDirectory: dataDirectory)
        if try await identity.user(named: user, container: container) == nil {
            _ = try await identity.addUser(user, password: Self.password, container: container, hasher: PasswordHasher(cost: 4))
        }
        return try await identity.issueWebAuthToken(user: user, container: container, lifetime: .seconds(3600))
    }

    /// Adds a discoverable account with an email address to `container` in a data directory, as
    /// `localcloud users add NAME --email ADDRESS` does (a server's, or an embedded store's).
    package static func addAccount(_ name: String, email: String, container: String, dataDirectory: URL) async throws {
        _ = try await SQLiteIdentityStore(dataDirectory: dataDirectory)
            .addUser(name, password: password, container: container, email: email, hasher: PasswordHasher(cost: 4))
    }

    /// Another container on this running server (a fresh, empty environment with `schema`), and its API token.
    package func addContainer(_ identifier: String, schema: String) async throws -> String {
        let seed = Container(configuration: .init(containerIdentifier: identifier, dataDirectory: dataDirectory, user: nil))
        _ = try await seed.importSchema(Schema(ckdb: schema))
        return try await SQLiteIdentityStore(dataDirectory: dataDirectory).createAPIToken(container: identifier, environment: .development)
    }

    /// The endpoint a client of this server uses, signed in as `user` (or anonymous).
    package func endpoint(user: String? = "alice") async throws -> WebServicesEndpoint {
        var token: String?
        if let user { token = try await webAuthToken(for: user) }
        return WebServicesEndpoint(serverURL: baseURL, containerIdentifier: container, environment: .development,
                                   apiToken: apiToken, webAuthToken: token)
    }

    /// A remote container's configuration on this server, as `user`, caching in `dataDirectory`;
    /// the server's first container unless another one (from ``addContainer(_:schema:)``) is named.
    package func configuration(user: String?, dataDirectory: URL, container: (identifier: String, apiToken: String)? = nil)
        async throws -> Container.Configuration {
        let identifier = container?.identifier ?? self.container
        var configuration = Container.Configuration(containerIdentifier: identifier, dataDirectory: dataDirectory, user: user)
        configuration.serverURL = baseURL
        configuration.apiToken = container?.apiToken ?? apiToken
        if let user { configuration.webAuthToken = try await webAuthToken(for: user, container: identifier) }
        return configuration
    }

    /// Stops serving gracefully (in-flight requests finish, connections close); the data directory
    /// stays for a restart until ``removeData()``.
    package func stop() async {
        stopRequester.yield()
        _ = try? await task.value
        // Down, but the port stays this server's for a restart (see PortPlaceholder).
        PortPlaceholder.hold(port)
    }

    /// Removes the data directory and gives the port back.
    package func removeData() {
        try? FileManager.default.removeItem(at: dataDirectory)
        PortPlaceholder.release(port)
        PortPlaceholder.unclaim(port)
    }
}
