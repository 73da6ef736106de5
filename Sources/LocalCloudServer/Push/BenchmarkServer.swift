import Foundation
import Hummingbird
import Logging

/// The real server with fixed credentials on a free loopback port, for `localcloud-bench push`:
/// API token ``apiToken``; web auth token `user-NAME` acts as NAME. `localcloud serve` never uses it.
///
/// ```swift
/// try await BenchmarkServer.run(dataDirectory: dir) { baseURL in … }   // until the task is cancelled
/// ```
package enum BenchmarkServer {
    package static let apiToken = "bench-api-token"

    /// - Parameters:
    ///   - port: 0 for a free one; a given port brings a stopped bench server back where it was.
    ///   - stopRequested: when given, the server shuts down gracefully once it returns (clients
    ///     may be connecting then); without it, it serves until the task is cancelled.
    package static func run(dataDirectory: URL, port: Int = 0, onListening: @escaping @Sendable (String) async -> Void,
                            until stopRequested: (@Sendable () async -> Void)? = nil) async throws {
        DescriptorLimit.raiseToHardLimit()
        var configuration = ServerConfiguration(dataDirectory: dataDirectory)
        configuration.port = port
        var logger = Logger(label: "bench-server")
        logger.logLevel = .warning
        let server = CloudServer(configuration: configuration, authenticator: FixedCredentials(), logger: logger)
        if let stopRequested {
            try await server.run(onListening: onListening, until: stopRequested)
        } else {
            try await server.makeApplication(onListening: onListening).run()
        }
    }

    private struct FixedCredentials: RequestAuthenticator {
        func authenticate(_ request: AuthenticationRequest) async throws -> RequestIdentity {
            guard request.apiToken == BenchmarkServer.apiToken else { throw ServerError(.authenticationFailed, "Unknown API token") }
            guard let token = request.webAuthToken else { return .anonymous }
            guard token.hasPrefix("user-") else { throw ServerError(.authenticationFailed, "Unknown web auth token") }
            return RequestIdentity(kind: .user(String(token.dropFirst(5))))
        }
    }
}
