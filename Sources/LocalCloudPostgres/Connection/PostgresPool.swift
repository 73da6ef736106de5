import Foundation
import LocalCloud
import Logging
import PostgresNIO
import Synchronization

/// A pool of connections to one PostgreSQL database (postgres-nio's `PostgresClient`), called
/// from the store's async code directly: a call suspends while PostgreSQL works, with no thread
/// of its own and nothing blocked.
package final class PostgresPool: Sendable {
    package let url: PostgresURL
    let client: PostgresClient
    /// The URL's TLS settings, or why they cannot be used (a missing CA file): every call fails with it then.
    let tls: Result<PostgresTLS, CloudError>
    package let logger: Logger
    private let runTask: Mutex<Task<Void, Never>?>
    private let closeWatch = ConnectionCloseWatch()
    /// Every call's wait for a connection, bounded by the URL's `connectTimeout`.
    private let deadlines: LeaseDeadlines

    /// How long a client should wait before retrying after the database went away.
    static let retryAfterSeconds = 1.0

    /// Connects lazily: the first query opens a connection; ``checkReachable()`` proves one can.
    package init(url: PostgresURL, maximumConnections: Int = 20) {
        self.url = url
        deadlines = LeaseDeadlines(timeout: url.connectTimeout)
        let tls = Result { try PostgresTLS.settings(for: url) }.mapError { Self.cloudError($0) }
        self.tls = tls
        // With unusable TLS settings the client is never asked for a connection (see withConnection).
        var configuration = PostgresClient.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
            tls: (try? tls.get())?.clientTLS ?? .disable)
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = url.connectTimeout
        var logger = Logger(label: "LocalCloud.postgres")
        logger.logLevel = .critical
        self.logger = logger
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let client = client
        runTask = Mutex(Task { await client.run() })
    }

    deinit {
        runTask.withLock { $0?.cancel() }
        deadlines.stop()
    }

    /// Stops the pool; queries after this fail.
    package func close() {
        runTask.withLock { task in
            task?.cancel()
            task = nil
        }
        deadlines.stop()
    }

    // MARK: Queries

    /// Every row of one statement on a pooled connection.
    package func rows(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) async throws -> [PostgresRow] {
        let logger = logger
        return try await withConnection { connection in
            try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).collect()
        }
    }

    /// Runs `body` on a pooled connection, waiting at most the URL's `connectTimeout` for one.
    ///
    /// The pool itself waits as long as it takes: while PostgreSQL is down or restarting, a lease
    /// would wait through its reconnection backoff (up to a minute). Past the deadline the lease is
    /// cancelled and the call fails with `serviceUnavailable` (TRY_AGAIN_LATER with `retryAfter`);
    /// the pool keeps reconnecting for the calls that follow. Only the wait for a connection is
    /// bounded: a long statement on a connection it got runs to its end, unless that connection
    /// closes (see ``PooledCall``). The deadline is a place in one queue per pool (``LeaseDeadlines``),
    /// not a timer per call: a call costs one task.
    ///
    /// - Throws: `serviceUnavailable` when no connection came within the deadline.
    package func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        _ = try tls.get()
        let call = PooledCall<T>(watch: closeWatch)
        let client = client
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let work = Task {
                    do {
                        let value = try await client.withConnection { connection in
                            guard call.leased(connection) else { throw CancellationError() }
                            return try await body(connection)
                        }
                        call.finish(.success(value))
                    } catch {
                        call.finish(.failure(error))
                    }
                }
                call.start(continuation, work: work)
                let timeout = deadlines.timeout
                deadlines.add { call.expire(after: timeout) }
            }
        } onCancel: {
            call.cancel()
        }
    }

    /// Runs `body` in one transaction on one connection; it commits unless `body` throws.
    package func transaction<T: Sendable>(isolation: String = "READ COMMITTED",
                                          _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let logger = logger
        return try await withConnection { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "BEGIN ISOLATION LEVEL \(isolation)"), logger: logger)
            do {
                let value = try await body(connection)
                try await connection.query("COMMIT", logger: logger)
                return value
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    /// Proves the database answers, for a clear message at start-up rather than at the first request.
    ///
    /// One connection of its own, not the pool's: the pool retries and reports only that it gave
    /// up, while a single attempt says why (refused, wrong password, no such database).
    package func checkReachable() async throws {
        let configuration = try tls.get().connectionConfiguration(url)
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            try? await connection.close()
        } catch {
            throw Self.cloudError(error)
        }
    }

    // MARK: Errors

    /// PostgreSQL's and the pool's errors as `CloudError`: a lost or refused connection is
    /// `serviceUnavailable` with a retry delay (TRY_AGAIN_LATER on the wire), anything else internal.
    package static func cloudError(_ error: any Error) -> CloudError {
        if let cloud = error as? CloudError { return cloud }
        if let error = error as? PSQLError {
            switch error.code {
            case .server:
                let state = error.serverInfo?[.sqlState] ?? ""
                let message = error.serverInfo?[.message] ?? "\(error)"
                // 08: connection exception; 57P: operator intervention (shutdown, restart); 53: resources.
                if state.hasPrefix("08") || state.hasPrefix("57P") || state.hasPrefix("53") {
                    return CloudError(.serviceUnavailable, "The database is unavailable: \(message)", cause: error,
                                      retryAfterSeconds: retryAfterSeconds)
                }
                if state == "28P01" || state == "28000" {
                    return CloudError(.serviceUnavailable, "The database refused the login: \(message)", cause: error,
                                      retryAfterSeconds: retryAfterSeconds)
                }
                if state == "3D000" {
                    return CloudError(.badDatabase, "The database does not exist: \(message)", cause: error)
                }
                return CloudError(.internalError, "Database error \(state): \(message)", cause: error)
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed,
                 .queryCancelled:
                return CloudError(.serviceUnavailable, "The database connection was lost; retry shortly", cause: error,
                                  retryAfterSeconds: retryAfterSeconds)
            default:
                return CloudError(.internalError, "Database error: \(error.code)", cause: error)
            }
        }
        if error is PostgresDecodingError {
            return CloudError(.internalError, "Unexpected database value: \(error)")
        }
        // Connection timeouts and socket errors from NIO.
        return CloudError(.serviceUnavailable, "The database is unreachable: \(error)", retryAfterSeconds: retryAfterSeconds)
    }

    /// The one-line reason a start-up connection failed, for the console.
    package static func startupMessage(_ error: any Error, url: PostgresURL) -> String {
        let cloud = cloudError(error)
        if let reason = PostgresTLS.failureReason(error, url: url) {
            return "Cannot connect to the database \(url): \(reason)"
        }
        if let psql = cloud.cause as? PSQLError, let message = psql.serverInfo?[.message] {
            // A server that takes only TLS (hostssl in pg_hba.conf) names no encryption as the reason.
            let hint = url.sslMode == .disable && message.hasSuffix("no encryption")
                ? " (the server accepts only TLS connections: use sslmode=verify-full, verify-ca or require)" : ""
            return "Cannot use the database \(url): \(message)\(hint)"
        }
        if let psql = (cloud.cause as? PSQLError) ?? (error as? PSQLError), psql.code == .connectionError {
            return "Cannot connect to the database \(url): \(socketReason(psql.underlying))"
        }
        return "Cannot use the database \(url): \(cloud.message)"
    }

    /// "Connection refused" rather than NIO's nested description, when it carries an errno.
    private static func socketReason(_ underlying: (any Error)?) -> String {
        guard let underlying else { return "connection refused" }
        let description = "\(underlying)"
        guard let range = description.range(of: #"errno: (\d+)"#, options: .regularExpression),
              let number = Int32(description[range].dropFirst("errno: ".count)) else { return description }
        return String(cString: strerror(number))
    }
}

/// What to do when a connection closes, for the calls running on it now.
///
/// One close callback per connection, registered the first time a call uses it: a callback per
/// call would pile up on a long-lived connection's close future until it closed.
final class ConnectionCloseWatch: Sendable {
    struct Token {
        var connection: ObjectIdentifier
        var call: Int
    }

    private struct State {
        /// The running calls' close handlers, by connection; a connection stays listed (maybe
        /// with none) until it closes, so its callback is registered once.
        var handlers: [ObjectIdentifier: [Int: @Sendable () -> Void]] = [:]
        var nextCall = 0
    }

    private let state = Mutex(State())

    func add(_ connection: PostgresConnection, onClose: @escaping @Sendable () -> Void) -> Token {
        let key = ObjectIdentifier(connection)
        let (call, isNew) = state.withLock { state in
            state.nextCall += 1
            let isNew = state.handlers[key] == nil
            state.handlers[key, default: [:]][state.nextCall] = onClose
            return (state.nextCall, isNew)
        }
        if isNew {
            connection.closeFuture.whenComplete { [weak self] _ in
                let handlers = self?.state.withLock { $0.handlers.removeValue(forKey: key) } ?? [:]
                for handler in handlers.values { handler() }
            }
        }
        return Token(connection: key, call: call)
    }

    func remove(_ token: Token) {
        _ = state.withLock { $0.handlers[token.connection]?.removeValue(forKey: token.call) }
    }
}

extension Duration {
    /// The same span as NIO's `TimeAmount`, for postgres-nio's options.
    var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}


