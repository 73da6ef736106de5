import AsyncHTTPClient
import Foundation
import Hummingbird
import LocalCloud
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
@testable import LocalCloudServer

/// A real server on a free loopback port over a temporary data directory, called with AsyncHTTPClient.
final class TestServer: Sendable {
    let baseURL: String
    let dataDirectory: URL
    let container = "iCloud.com.example.Test"
    private let task: Task<Void, any Error>

    /// Starts the server and waits (with a deadline) until it accepts connections.
    static func start(
        authenticator: any RequestAuthenticator = StaticAuthenticator(),
        logger: Logger? = nil,
        configure: (inout ServerConfiguration) async -> Void = { _ in }
    ) async throws -> TestServer {
        try await start(makeAuthenticator: { _ in authenticator }, logger: logger, configure: configure)
    }

    /// Starts with the real ``TokenAuthenticator`` over the data directory's identity store; make tokens,
    /// users and keys through ``identity``. A cheap bcrypt cost keeps tests fast; `now` is the server's clock.
    static func startWithIdentity(
        clock: WallClock = .system,
        throttle: SigninThrottle = SigninThrottle(),
        logger: Logger? = nil,
        configure: (inout ServerConfiguration) async -> Void = { _ in }
    ) async throws -> TestServer {
        try await start(makeAuthenticator: { configuration in
            TokenAuthenticator(store: SQLiteIdentityStore(dataDirectory: configuration.dataDirectory),
                               tokenLifetime: configuration.tokenLifetime, hasher: PasswordHasher(cost: 4),
                               throttle: throttle, clock: clock)
        }, logger: logger, configure: configure)
    }

    static func start(
        makeAuthenticator: (ServerConfiguration) -> any RequestAuthenticator,
        logger: Logger? = nil,
        configure: (inout ServerConfiguration) async -> Void = { _ in }
    ) async throws -> TestServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lcs-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = ServerConfiguration(dataDirectory: directory)
        configuration.port = 0
        await configure(&configuration)
        let authenticator = makeAuthenticator(configuration)
        let logger = logger ?? {
            var logger = Logger(label: "test-server")
            logger.logLevel = .warning
            return logger
        }()
        // The FoodPin schema, so queries find the indexes CloudKit would require.
        let schemaText = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../Assets/FoodPin.ckdb").standardized, encoding: .utf8)
        let seed = Container(configuration: .init(containerIdentifier: "iCloud.com.example.Test", dataDirectory: directory, user: nil))
        _ = try await seed.importSchema(Schema(ckdb: schemaText))
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
        guard let url else {
            task.cancel()
            throw CloudError(.internalError, "The test server did not start within 30 s")
        }
        return TestServer(baseURL: url, dataDirectory: directory, task: task, authenticator: authenticator, cloudServer: server)
    }

    private init(baseURL: String, dataDirectory: URL, task: Task<Void, any Error>, authenticator: any RequestAuthenticator,
                 cloudServer: CloudServer) {
        self.cloudServer = cloudServer
        self.baseURL = baseURL
        self.dataDirectory = dataDirectory
        self.task = task
        self.authenticator = authenticator
    }

    /// The server itself, for what only it can tell (how many push sessions it watches).
    let cloudServer: CloudServer

    /// The server's authenticator; with ``startWithIdentity(clock:throttle:logger:configure:)``, a ``TokenAuthenticator``.
    let authenticator: any RequestAuthenticator

    /// The identity store of a server started with ``startWithIdentity(clock:throttle:logger:configure:)``.
    var identity: any IdentityStore {
        get throws {
            guard let authenticator = authenticator as? TokenAuthenticator else {
                throw CloudError(.internalError, "This test server was started without an identity store")
            }
            return authenticator.store
        }
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    /// `/database/1/<container>/development/<database>/<endpoint>?ckAPIToken=…[&ckWebAuthToken=…]`
    func url(_ endpoint: String, database: String = "public", user: String? = nil,
             apiToken: String = StaticAuthenticator.apiToken) -> String {
        var url = "\(baseURL)/database/1/\(container)/development/\(database)/\(endpoint)?ckAPIToken=\(apiToken)"
        if let user { url += "&ckWebAuthToken=user-\(user)" }
        return url
    }

    /// Sends `body` (a JSON string) and returns the status and the parsed JSON response.
    func call(_ method: HTTPMethod = .POST, endpoint: String, database: String = "public", user: String? = nil,
              body: String? = nil) async throws -> (status: Int, json: JSONValue) {
        try await Self.send(method, url(endpoint, database: database, user: user), body: body.map { Array($0.utf8) })
    }

    static func send(_ method: HTTPMethod, _ url: String, body: [UInt8]? = nil,
                     headers: [(String, String)] = []) async throws -> (status: Int, json: JSONValue) {
        let (status, bytes) = try await sendRaw(method, url, body: body, headers: headers)
        return (status, (try? JSONValue.parse(bytes)) ?? .null)
    }

    static func sendRaw(_ method: HTTPMethod, _ url: String, body: [UInt8]? = nil,
                        headers: [(String, String)] = []) async throws -> (status: Int, bytes: [UInt8]) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let buffer = try await response.body.collect(upTo: 64 * 1024 * 1024)
        return (Int(response.status.code), Array(buffer.readableBytesView))
    }
}

/// Credentials without an identity store: API token `test-api-token`; web auth token `user-NAME` is NAME.
struct StaticAuthenticator: RequestAuthenticator {
    static let apiToken = "test-api-token"

    func authenticate(_ request: AuthenticationRequest) async throws -> RequestIdentity {
        guard request.apiToken == Self.apiToken else { throw ServerError(.authenticationFailed, "Unknown API token") }
        guard let token = request.webAuthToken else { return .anonymous }
        guard token.hasPrefix("user-") else { throw ServerError(.authenticationFailed, "Unknown web auth token") }
        return RequestIdentity(kind: .user(String(token.dropFirst(5))))
    }
}

/// A request kept for re-sending with different headers (ETag round trips).
struct HTTPClientRequestBuilder {
    var url: String
    var body: String
    var headers: [(String, String)] = []

    func send() async throws -> (status: Int, headers: HTTPHeaders, body: [UInt8]) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: Array(body.utf8)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let buffer = try await response.body.collect(upTo: 64 * 1024 * 1024)
        return (Int(response.status.code), response.headers, Array(buffer.readableBytesView))
    }
}
