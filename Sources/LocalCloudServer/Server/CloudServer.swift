import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import LocalCloud
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle

/// `localcloud serve`: CloudKit Web Services over every container in a data directory.
///
/// ```swift
/// let server = CloudServer(configuration: config, authenticator: authenticator)
/// try await server.run { url in print("listening on \(url)") }
/// ```
package struct CloudServer: Sendable {
    let configuration: ServerConfiguration
    let registry: StoreRegistry
    let authenticator: any RequestAuthenticator
    let logger: Logger
    let state: ServerState
    let responses = ResponseCache()
    /// The web console at `/console`; `nil` with `--no-console`.
    let webConsole: WebConsole?
    /// The open push streams and polls, ended when their user signs out.
    let pushSessions: PushSessions

    init(configuration: ServerConfiguration, authenticator: any RequestAuthenticator, logger: Logger, state: ServerState? = nil) {
        self.configuration = configuration
        registry = StoreRegistry(dataDirectory: configuration.dataDirectory, storeOpener: configuration.storeOpener)
        self.authenticator = authenticator
        self.logger = logger
        let state = state ?? .local(dataDirectory: configuration.dataDirectory)
        self.state = state
        webConsole = configuration.console
            ? WebConsole(store: state.console, journal: RequestJournal(clock: authenticator.clock), shared: state.requestLog, logger: logger,
                         hasher: (authenticator as? TokenAuthenticator)?.hasher ?? .standard,
                         sessionLifetime: configuration.consoleSessionLifetime, defaultContainer: configuration.consoleContainer,
                         clock: authenticator.clock)
            : nil
        pushSessions = PushSessions(authenticator: authenticator, logger: logger)
    }

    /// Serves until SIGTERM or SIGINT, then lets in-flight requests finish and returns.
    /// - Parameter onListening: called once with the base URL (`http://HOST:PORT`) when connections are accepted.
    package func run(onListening: @escaping @Sendable (String) async -> Void) async throws {
        // Every open push stream holds a descriptor: take all the OS allows.
        if let limit = DescriptorLimit.raiseToHardLimit() {
            logger.info("Open-file limit \(limit.to) (was \(limit.from))")
        } else {
            logger.warning("Could not read or raise the open-file limit (RLIMIT_NOFILE)")
        }
        let app = try makeApplication(onListening: onListening)
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }

    /// Serves until `stopRequested` returns, then shuts down gracefully, as on SIGTERM: in-flight
    /// requests finish and every accepted connection is closed properly. (Cancelling the serving
    /// task instead can trap in NIO when a connection is accepted at that moment:
    /// apple/swift-nio#3481.) For a server inside another program, such as tests.
    package func run(onListening: @escaping @Sendable (String) async -> Void,
                     until stopRequested: @escaping @Sendable () async -> Void) async throws {
        let app = try makeApplication(onListening: onListening)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        let stopper = Task {
            await stopRequested()
            await group.triggerGracefulShutdown()
        }
        defer { stopper.cancel() }
        try await group.run()
    }

    func makeApplication(onListening: @escaping @Sendable (String) async -> Void) throws -> some ApplicationProtocol {
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: RequestLogMiddleware(logger: logger, journal: webConsole?.journal))
        router.add(middleware: ErrorResponseMiddleware())
        addRoutes(to: router)
        let readTimeout = TimeAmount.seconds(max(1, configuration.readTimeout.components.seconds))
        let http = HTTP1Channel.Configuration(
            additionalChannelHandlers: [RequestHeadDeadline(timeout: readTimeout)], idleTimeout: readTimeout)
        let server: HTTPServerBuilder
        if let certificate = configuration.tlsCertificatePath, let key = configuration.tlsKeyPath {
            let tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
            server = try .tls(.http1(configuration: http), tlsConfiguration: tls)
        } else {
            server = .http1(configuration: http)
        }
        let scheme = configuration.scheme
        let host = configuration.host
        return Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(host, port: configuration.port), serverName: "LocalCloud"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                // The cluster's log names each node by host and port.
                self.webConsole?.cluster?.setNode("\(ProcessInfo.processInfo.hostName):\(port)")
                await onListening("\(scheme)://\(Self.urlHost(host)):\(port)")
            },
            logger: logger
        )
    }

    /// Every route; each concern adds its own group in its own file.
    func addRoutes(to router: Router<ServerRequestContext>) {
        addRecordRoutes(to: router)
        addShareRoutes(to: router)
        addZoneRoutes(to: router)
        addChangeRoutes(to: router)
        addSubscriptionRoutes(to: router)
        addNotificationStreamRoutes(to: router)
        addTokenRoutes(to: router)
        addAssetRoutes(to: router)
        addAuthRoutes(to: router)
        addUserRoutes(to: router)
        addConsoleRoutes(to: router)
        if let bytes = configuration.benchStaticResponse {
            router.post("bench/static") { _, _ in Self.jsonResponse(bytes) }
        }
    }

    static func urlHost(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }

    static let jsonContentType = "application/json; charset=utf-8"

    static func jsonResponse(_ bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: jsonContentType],
                 body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
