import CCurlShim
import Foundation

/// Blocking HTTP over libcurl, for the remote store: one request per call, connections kept alive
/// and reused across calls and threads, TLS verified against the system CA store.
///
/// ```swift
/// let transport = HTTPTransport()
/// let response = try transport.send(.init(method: "GET", url: "https://cloud.example/…"))
/// ```
///
/// Calls block the calling thread (the database's operation queue, never the cooperative pool).
/// Transport failures are ``CloudError``s with CloudKit's codes: `networkUnavailable` when the
/// server cannot be reached at all (DNS, connection refused), `networkFailure` with curl's one-line
/// reason for everything that breaks once connected (resets, timeouts, TLS).
package struct HTTPTransport: Sendable {
    package struct Timeouts: Sendable, Hashable {
        /// TCP connect plus the TLS handshake.
        package var connect: Duration = .seconds(10)
        /// A request that moves no byte for this long fails: a server that accepts but never answers.
        /// curl averages over its last 5 s, so the failure comes up to 5 s after this much silence.
        package var idle: Duration = .seconds(30)
        /// The whole exchange; `nil` for no limit (a 50 MB asset on a slow link may take a while).
        package var total: Duration?

        package init(connect: Duration = .seconds(10), idle: Duration = .seconds(30), total: Duration? = nil) {
            self.connect = connect
            self.idle = idle
            self.total = total
        }
    }

    package struct Request: Sendable {
        package var method: String
        package var url: String
        package var headers: [(name: String, value: String)]
        package var body: [UInt8]?

        package init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
        }
    }

    package struct Response: Sendable {
        package var status: Int
        /// The media type, lowercased and without parameters ("application/json").
        package var contentType: String
        /// `Retry-After` in seconds, when the server sent a number.
        package var retryAfterSeconds: Double?
        package var body: [UInt8]
        /// The server's clock (its `Date` header, to the second), when it sent one.
        package var serverDate: Date?
    }

    package var timeouts: Timeouts
    /// One more trusted CA bundle (PEM), added to the system store; `LOCALCLOUD_CA_FILE`.
    package var extraCAFile: String?
    /// Larger buffered bodies fail the request rather than fill memory.
    package var maxBodyBytes: Int

    package init(timeouts: Timeouts = Timeouts(), extraCAFile: String? = nil, maxBodyBytes: Int = 64 * 1024 * 1024) {
        self.timeouts = timeouts
        self.extraCAFile = extraCAFile
        self.maxBodyBytes = maxBodyBytes
    }

    /// Sends a request and reads the whole response.
    /// - Throws: `networkUnavailable`, `networkFailure`, or `internalError` when libcurl cannot be loaded.
    ///
    /// libcurl's easy interface blocks, so every request runs here, on a thread of its own
    /// (``BlockingThread``), while the calling task suspends: the one place the remote store waits.
    package func send(_ request: Request) async throws -> Response {
        try await BlockingThread.run("http") { try perform(request, streaming: nil) }
    }

    /// Sends a request and hands the body to `onData` as it arrives (server-sent events), until
    /// the server ends it, `onData` returns false, or `shouldStop` returns true (asked about once a second).
    /// `onResponse` sees the status and media type before the first chunk.
    ///
    /// - Returns: the response, with an empty body.
    /// - Throws: the same errors as ``send(_:)``; `operationCancelled` when stopped.
    package func stream(
        _ request: Request,
        onData: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool,
        shouldStop: @escaping @Sendable () -> Bool
    ) async throws -> Response {
        try await BlockingThread.run("http-stream") {
            try perform(request, streaming: StreamSink(onData: onData, shouldStop: shouldStop))
        }
    }

    /// The defaults, with `LOCALCLOUD_CA_FILE` (one more trusted CA bundle, for a server with a
    /// private or self-signed certificate).
    package static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) -> HTTPTransport {
        HTTPTransport(extraCAFile: env["LOCALCLOUD_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// Whether libcurl can be loaded here, and if not, why.
    package static func availability() -> String? {
        ccurl_load() == 0 ? nil : ccurl_load_error().map { String(cString: $0) } ?? "libcurl could not be loaded"
    }

    private func perform(_ request: Request, streaming sink: StreamSink?) throws -> Response {
        var response = CCurlResponse()
        defer { ccurl_response_free(&response) }
        let headerLines = request.headers.map { "\($0.name): \($0.value)" }
        withCStrings(headerLines) { headerPointers in
            request.method.withCString { method in
                request.url.withCString { url in
                    withOptionalCString(extraCAFile) { caFile in
                        withBody(request.body) { body, length in
                            var call = CCurlRequest()
                            call.method = method
                            call.url = url
                            call.headers = headerPointers.baseAddress.map { UnsafePointer($0) }
                            call.header_count = Int32(headerLines.count)
                            call.body = body
                            call.body_length = length
                            call.connect_timeout_ms = timeouts.connect.milliseconds
                            call.idle_timeout_s = max(1, (timeouts.idle.milliseconds + 999) / 1000)
                            call.total_timeout_ms = timeouts.total?.milliseconds ?? 0
                            call.ca_file = caFile
                            call.max_body_bytes = maxBodyBytes
                            if let sink {
                                let context = Unmanaged.passRetained(sink)
                                defer { context.release() }
                                call.context = context.toOpaque()
                                call.on_data = { data, length, context in
                                    guard let context, let data else { return 1 }
                                    let sink = Unmanaged<StreamSink>.fromOpaque(context).takeUnretainedValue()
                                    return sink.onData(UnsafeRawBufferPointer(start: data, count: length)) ? 1 : 0
                                }
                                call.should_stop = { context in
                                    guard let context else { return 0 }
                                    return Unmanaged<StreamSink>.fromOpaque(context).takeUnretainedValue().shouldStop() ? 1 : 0
                                }
                                ccurl_perform(&call, &response)
                            } else {
                                ccurl_perform(&call, &response)
                            }
                        }
                    }
                }
            }
        }
        let contentType = fixedString(&response.content_type)
        let result = Response(
            status: response.status,
            contentType: contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? "",
            retryAfterSeconds: Double(fixedString(&response.retry_after).trimmingCharacters(in: .whitespaces)),
            body: response.body.map { Array(UnsafeBufferPointer(start: $0, count: response.body_length)) } ?? [],
            serverDate: ServerClock.parseHTTPDate(fixedString(&response.date)))
        if response.stopped != 0 {
            throw CloudError(.operationCancelled, "The request to \(Self.host(request.url)) was stopped")
        }
        if response.too_large != 0 {
            throw CloudError(.networkFailure, "The response from \(Self.host(request.url)) is larger than \(maxBodyBytes) bytes")
        }
        guard response.curl_code == Int32(CCURL_OK) else {
            throw Self.transportError(code: response.curl_code, reason: fixedString(&response.error), url: request.url)
        }
        return result
    }

    /// curl's failure as CloudKit reports network trouble: unreachable, or broken once connected.
    static func transportError(code: Int32, reason: String, url: String) -> CloudError {
        let host = host(url)
        switch code {
        case Int32(CCURL_COULDNT_RESOLVE_HOST), Int32(CCURL_COULDNT_RESOLVE_PROXY), Int32(CCURL_COULDNT_CONNECT):
            return CloudError(.networkUnavailable, "Cannot reach \(host): \(reason)")
        case Int32(CCURL_OPERATION_TIMEDOUT):
            return CloudError(.networkFailure, "\(host) did not answer in time: \(reason)")
        case Int32(CCURL_PEER_FAILED_VERIFICATION):
            return CloudError(.networkFailure, "Refused \(host)'s TLS certificate: \(reason)")
        case 2:  // CURLE_FAILED_INIT: libcurl itself is missing
            return CloudError(.internalError, "HTTP is unavailable: \(reason)")
        default:
            return CloudError(.networkFailure, "The connection to \(host) failed: \(reason)")
        }
    }

    /// `host:port` of a URL, for messages (never the query string: it carries tokens).
    static func host(_ url: String) -> String {
        guard let components = URLComponents(string: url), let host = components.host else { return "the server" }
        return components.port.map { "\(host):\($0)" } ?? host
    }
}

/// The Swift side of one streaming transfer, reached from libcurl's callbacks through an opaque pointer.
private final class StreamSink: Sendable {
    // Called only on the thread running ccurl_perform, synchronously; never stored past it.
    nonisolated(unsafe) let onData: (UnsafeRawBufferPointer) -> Bool
    nonisolated(unsafe) let shouldStop: () -> Bool

    init(onData: @escaping (UnsafeRawBufferPointer) -> Bool, shouldStop: @escaping () -> Bool) {
        self.onData = onData
        self.shouldStop = shouldStop
    }
}

private extension Duration {
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

/// A NUL-terminated C array in a fixed-size tuple, as Swift imports `char[N]`.
private func fixedString<T>(_ tuple: inout T) -> String {
    withUnsafeBytes(of: &tuple) { raw in
        let bytes = raw.prefix { $0 != 0 }
        return String(decoding: bytes, as: UTF8.self)
    }
}

private func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}

private func withBody<R>(_ bytes: [UInt8]?, _ body: (UnsafePointer<UInt8>?, Int) -> R) -> R {
    guard let bytes else { return body(nil, 0) }
    // An empty POST still sends Content-Length: 0, so pass a valid pointer.
    if bytes.isEmpty { return [UInt8(0)].withUnsafeBufferPointer { body($0.baseAddress, 0) } }
    return bytes.withUnsafeBufferPointer { body($0.baseAddress, $0.count) }
}

/// C strings for the duration of `body`, as an array of pointers.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> R) -> R {
    let duplicates = strings.map { strdup($0).map { UnsafePointer($0) } }
    defer { duplicates.forEach { free(UnsafeMutableRawPointer(mutating: $0)) } }
    return duplicates.withUnsafeBufferPointer(body)
}
