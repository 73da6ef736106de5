import Foundation
import Synchronization

/// CloudKit Web Services requests over ``HTTPTransport``: builds the URLs and bodies, reads the
/// answers, and turns every failure into the ``CloudError`` CloudKit would raise.
///
/// ```swift
/// let client = WebServicesClient(endpoint: endpoint)
/// let page = try client.database(.public, "records/query", body: ["query": …], idempotent: true)
/// ```
///
/// - Server errors (`{serverErrorCode, reason}`) come back with ``ServerErrorCode``'s code, and
///   THROTTLED / TRY_AGAIN_LATER with `retryAfterSeconds` (the body's `retryAfter`, else the header).
/// - A body that is not JSON (an HTML proxy page, a captive portal) is `networkFailure`.
/// - Retries follow ``RetryPolicy``: only what CloudKit retries.
package struct WebServicesClient: Sendable {
    package var endpoint: WebServicesEndpoint
    package var transport: HTTPTransport
    package var retry: RetryPolicy
    /// The server's clock against this machine's, from each answer's `Date` (shared by copies).
    package let serverClock: ServerClock

    package init(endpoint: WebServicesEndpoint, transport: HTTPTransport = HTTPTransport(), retry: RetryPolicy = RetryPolicy(),
                 serverClock: ServerClock = ServerClock()) {
        self.endpoint = endpoint
        self.transport = transport
        self.retry = retry
        self.serverClock = serverClock
    }

    /// `POST` (or `GET` without a body) `/database/1/{container}/{environment}/{database}/{path}`.
    ///
    /// - Parameter idempotent: whether sending it twice is harmless (reads, and writes whose
    ///   retry the server recognises); only those are retried after a broken connection.
    package func database(_ scope: Database.Scope, _ path: String, body: JSONValue?, idempotent: Bool) async throws -> JSONValue {
        try await json(body == nil ? "GET" : "POST", endpoint.databaseURL(scope, path), body: body, idempotent: idempotent)
    }

    /// A push endpoint, under `/database/1/{container}/{environment}/` without the database segment.
    package func container(_ path: String, body: JSONValue?, idempotent: Bool) async throws -> JSONValue {
        try await json(body == nil ? "GET" : "POST", endpoint.containerURL(path), body: body, idempotent: idempotent)
    }

    /// `POST /auth/1/{container}/signin {"user", "password"}`: a new web auth token.
    /// - Throws: `notAuthenticated` for a wrong user or password; `requestRateLimited` while locked out.
    package func signIn(user: String, password: String) async throws -> String {
        let body = JSONValue.object(["user": .string(user), "password": .string(password)])
        // Not retried: a wrong password must not count twice against the throttle.
        let answer = try await WebServicesClient(endpoint: endpoint, transport: transport, retry: .never, serverClock: serverClock)
            .json("POST", endpoint.signinURL, body: body, idempotent: false)
        guard let token = answer["ckWebAuthToken"]?.stringValue, !token.isEmpty else {
            throw CloudError(.networkFailure, "\(endpoint.host) answered the sign-in without a ckWebAuthToken")
        }
        return token
    }

    /// `POST /auth/1/{container}/signout`: revokes the endpoint's web auth token on the server,
    /// which ends its push. Returns whether the server had it live.
    package func signOut() async throws -> Bool {
        let answer = try await json("POST", endpoint.signoutURL, body: .object([:]), idempotent: true)
        return answer["signedOut"]?.boolValue ?? false
    }

    /// Sends raw bytes (an asset's contents to its upload URL) and reads a JSON answer.
    package func upload(_ bytes: [UInt8], to url: String, contentType: String = "application/octet-stream") async throws -> JSONValue {
        try await json("POST", endpoint.authenticating(url), body: nil, rawBody: bytes, contentType: contentType, idempotent: false)
    }

    /// Downloads a URL the server handed out (an asset's `downloadURL`).
    package func download(_ url: String) async throws -> [UInt8] {
        let request = HTTPTransport.Request(method: "GET", url: endpoint.authenticating(url))
        return try await withRetries(idempotent: true) {
            let response = try await transport.send(request)
            guard (200..<300).contains(response.status) else { throw error(for: response, url: url) }
            return response.body
        }
    }

    /// Streams `GET /database/1/{container}/{environment}/notifications` (server-sent events) until
    /// the server ends it or `shouldStop` returns true, resuming after `lastEventID`. `onOpen` runs
    /// once, when the first bytes of the stream arrive.
    /// - Throws: what ``database(_:_:body:idempotent:)`` throws, and `operationCancelled` when stopped.
    package func notifications(
        lastEventID: String?, onOpen: @escaping @Sendable () -> Void = {}, onEvent: @escaping @Sendable (ServerSentEvent) -> Void,
        shouldStop: @escaping @Sendable () -> Bool
    ) async throws {
        var headers: [(name: String, value: String)] = [("Accept", "text/event-stream")]
        if let lastEventID { headers.append(("Last-Event-ID", lastEventID)) }
        let request = HTTPTransport.Request(method: "GET", url: endpoint.containerURL("notifications"), headers: headers)
        var streamTransport = transport
        // The server writes a heartbeat every 15 s; three missed ones mean the connection is dead.
        streamTransport.timeouts.idle = .seconds(45)
        streamTransport.timeouts.total = nil
        // The stream's own body is events; an error answer is buffered to be reported. Chunks
        // arrive on the transport's thread, one at a time.
        let stream = Mutex(EventStreamState())
        let response = try await streamTransport.stream(request, onData: { chunk in
            let (opened, events) = stream.withLock { stream -> (Bool, [ServerSentEvent]) in
                var opened = false
                if stream.isEventStream == nil {
                    // Decided by the first bytes: an error answer is JSON (or a proxy's HTML), never `data:`-lines.
                    let head = chunk.prefix { $0 != 0x0A }
                    stream.isEventStream = !(head.first == UInt8(ascii: "{") || head.first == UInt8(ascii: "<"))
                    opened = stream.isEventStream == true
                }
                if stream.isEventStream == true { return (opened, stream.parser.feed(chunk)) }
                if stream.errorBody.count < 64 * 1024 { stream.errorBody.append(contentsOf: chunk) }
                return (opened, [])
            }
            if opened { onOpen() }
            for event in events { onEvent(event) }
            return true
        }, shouldStop: shouldStop)
        let (isEventStream, errorBody) = stream.withLock { ($0.isEventStream, $0.errorBody) }
        if !(200..<300).contains(response.status) || isEventStream == false {
            var answer = response
            answer.body = errorBody
            throw error(for: answer, url: request.url)
        }
    }

    // MARK: Exchanges

    private func json(_ method: String, _ url: String, body: JSONValue?, rawBody: [UInt8]? = nil,
                      contentType: String = "application/json", idempotent: Bool) async throws -> JSONValue {
        let bytes = rawBody ?? body?.bytes ?? (method == "POST" ? Array("{}".utf8) : nil)
        var headers: [(name: String, value: String)] = [("Accept", "application/json")]
        if bytes != nil { headers.append(("Content-Type", contentType)) }
        let request = HTTPTransport.Request(method: method, url: url, headers: headers, body: bytes)
        return try await withRetries(idempotent: idempotent) {
            let response = try await transport.send(request)
            serverClock.observe(serverDate: response.serverDate, at: serverClock.local.now)
            return try decode(response, url: url)
        }
    }

    private func withRetries<T>(idempotent: Bool, _ attempt: () async throws -> T) async throws -> T {
        var number = 1
        while true {
            do {
                return try await attempt()
            } catch let error as CloudError {
                guard let wait = retry.delay(after: error, attempt: number, idempotent: idempotent) else { throw error }
                await retry.sleep(wait)
                number += 1
            }
        }
    }

    /// A 2xx JSON object, or the error the answer stands for.
    func decode(_ response: HTTPTransport.Response, url: String) throws -> JSONValue {
        guard (200..<300).contains(response.status) else { throw error(for: response, url: url) }
        guard Self.isJSON(response.contentType), let json = try? JSONValue.parse(response.body), json.objectValue != nil else {
            throw CloudError(.networkFailure, "\(HTTPTransport.host(url)) answered HTTP \(response.status) with "
                + "\(Self.describe(response.contentType)), not CloudKit JSON (a proxy or captive portal in the way?)")
        }
        return json
    }

    /// A failed answer as CloudKit reports it: the server's own code when it sent one.
    func error(for response: HTTPTransport.Response, url: String) -> CloudError {
        let host = HTTPTransport.host(url)
        if Self.isJSON(response.contentType), let json = try? JSONValue.parse(response.body),
           let code = json["serverErrorCode"]?.stringValue {
            let serverCode = ServerErrorCode(rawValue: code)
            let reason = json["reason"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } ?? code
            let signedOut = serverCode == .authenticationFailed || serverCode == .authenticationRequired
            return CloudError(serverCode.cloudErrorCode, Self.oneLine(reason),
                              cause: signedOut ? ServerRefusedCredentials(serverErrorCode: code) : nil,
                              retryAfterSeconds: json["retryAfter"]?.doubleValue ?? response.retryAfterSeconds)
        }
        switch response.status {
        case 429:
            return CloudError(.requestRateLimited, "\(host) is limiting requests", retryAfterSeconds: response.retryAfterSeconds)
        case 503:
            return CloudError(.serviceUnavailable, "\(host) is unavailable (HTTP 503)", retryAfterSeconds: response.retryAfterSeconds)
        case 401, 421:
            return CloudError(.notAuthenticated, "\(host) refused the credentials (HTTP \(response.status))",
                              cause: ServerRefusedCredentials(serverErrorCode: response.status == 401 ? "AUTHENTICATION_FAILED" : "AUTHENTICATION_REQUIRED"))
        default:
            return CloudError(.networkFailure, "\(host) answered HTTP \(response.status) with "
                + "\(Self.describe(response.contentType)), not CloudKit JSON (a proxy or captive portal in the way?)")
        }
    }

    private static func isJSON(_ contentType: String) -> Bool {
        contentType == "application/json" || contentType.hasSuffix("+json")
    }

    private static func describe(_ contentType: String) -> String {
        contentType.isEmpty ? "no content type" : contentType
    }

    private static func oneLine(_ text: String) -> String {
        String(text.split(whereSeparator: \.isNewline).joined(separator: " ").prefix(300))
    }
}

/// The `cause` of a `notAuthenticated` error from a server: AUTHENTICATION_FAILED (an unknown,
/// expired or revoked token) or AUTHENTICATION_REQUIRED. The app tells the person to sign in again.
public struct ServerRefusedCredentials: Error, Sendable, Hashable {
    public var serverErrorCode: String

    public init(serverErrorCode: String) {
        self.serverErrorCode = serverErrorCode
    }
}

/// What a notification stream has read so far.
private struct EventStreamState {
    var parser = ServerSentEventParser()
    var errorBody: [UInt8] = []
    var isEventStream: Bool?
}
