import Foundation
import LocalCloud
import Synchronization
import LocalCloudServerTesting
import Testing

/// The bad conditions over raw sockets and a real TLS server: each one a CloudKit network error
/// with a one-line reason, and retries only where CloudKit retries.
@Suite("HTTP transport failures")
struct TransportFailureTests {
    static func client(_ url: String, timeouts: HTTPTransport.Timeouts = .init(connect: .seconds(2), idle: .seconds(1)),
                       retry: RetryPolicy = .never, caFile: String? = nil) -> WebServicesClient {
        let endpoint = WebServicesEndpoint(serverURL: URL(string: url) ?? URL(fileURLWithPath: "/"),
                                           containerIdentifier: "iCloud.T", environment: .development,
                                           apiToken: "t", webAuthToken: nil)
        return WebServicesClient(endpoint: endpoint, transport: HTTPTransport(timeouts: timeouts, extraCAFile: caFile), retry: retry)
    }

    static let query = JSONValue.object(["query": .object(["recordType": .string("Restaurant")])])

    @Test func nothingListeningIsNetworkUnavailableAndNotRetried() async throws {
        let server = try RawSocketServer { _ in }
        let url = server.url
        server.stop()
        let sleeps = RecordedSleeps()
        let client = Self.client(url, retry: sleeps.policy())
        let error = await cloudError { try await client.database(.public, "records/query", body: Self.query, idempotent: true) }
        #expect(error?.code == .networkUnavailable)
        #expect(error?.message.hasPrefix("Cannot reach 127.0.0.1:") == true, "\(error?.message ?? "")")
        #expect(sleeps.all.isEmpty, "an absent server is reported at once")
    }

    @Test func aServerThatNeverAnswersTimesOut() async throws {
        let server = try RawSocketServer { connection in
            _ = connection.readRequest()
            connection.waitForClose()
        }
        defer { server.stop() }
        let client = Self.client(server.url)
        let waited = Mutex<Duration>(.zero)
        // Timed on the calling thread: the test's own awaits may queue behind other suites.
        let error = await cloudError {
            let started = ContinuousClock.now
            defer { waited.withLock { $0 = ContinuousClock.now - started } }
            return try await client.database(.public, "records/query", body: Self.query, idempotent: true)
        }
        #expect(error?.code == .networkFailure)
        #expect(error?.message.contains("did not answer in time") == true, "\(error?.message ?? "")")
        // curl averages the speed over its last 5 s, and the request's own bytes count: a 1 s idle
        // limit fires about 6 s after the request went out.
        // The bound tells the idle timeout from a hang with room for a loaded full-suite run.
        #expect(waited.withLock { $0 } < .seconds(60), "the idle timeout, not a hang: \(error?.message ?? "")")
    }

    @Test func anHTMLProxyPageIsANetworkFailureNotData() async throws {
        let server = try RawSocketServer { connection in
            while connection.readRequest() != nil {
                connection.respond(status: "200 OK", contentType: "text/html; charset=utf-8",
                                   body: "<html><body>Please log in to the hotel Wi-Fi</body></html>")
            }
        }
        defer { server.stop() }
        let error = await cloudError { try await Self.client(server.url).database(.public, "records/query", body: Self.query, idempotent: true) }
        #expect(error?.code == .networkFailure)
        #expect(error?.message == "127.0.0.1:\(server.port) answered HTTP 200 with text/html, not CloudKit JSON (a proxy or captive portal in the way?)")

        let gateway = try RawSocketServer { connection in
            while connection.readRequest() != nil {
                connection.respond(status: "502 Bad Gateway", contentType: "text/html", body: "<h1>502</h1>")
            }
        }
        defer { gateway.stop() }
        let bad = await cloudError { try await Self.client(gateway.url).database(.public, "records/query", body: Self.query, idempotent: true) }
        #expect(bad?.code == .networkFailure)
        #expect(bad?.message.contains("HTTP 502") == true)
    }

    @Test func aServerKilledMidRequestIsRetriedOnlyWhenIdempotent() async throws {
        let server = try RawSocketServer { connection in
            _ = connection.readRequest()
            // Dies before answering.
        }
        defer { server.stop() }
        let sleeps = RecordedSleeps()
        let read = await cloudError { try await Self.client(server.url, retry: sleeps.policy()).database(.public, "records/query", body: Self.query, idempotent: true) }
        #expect(read?.code == .networkFailure)
        #expect(read?.message.contains("\n") == false)
        #expect(server.acceptedCount == 3, "a read is tried three times")
        #expect(sleeps.all == [.milliseconds(125), .milliseconds(250)], "backoff doubles, with jitter (random 0.5 here)")

        let write = await cloudError { try await Self.client(server.url, retry: sleeps.policy()).database(.public, "records/modify", body: .object([:]), idempotent: false) }
        #expect(write?.code == .networkFailure)
        #expect(server.acceptedCount == 4, "a write that may have landed is not sent twice")
    }

    @Test func throttledAndTryAgainLaterCarryRetryAfterAndAreRetried() async throws {
        let answers = Mutex(0)
        let server = try RawSocketServer { connection in
            while connection.readRequest() != nil {
                let number = answers.withLock { count in
                    count += 1
                    return count
                }
                switch number {
                case 1:
                    connection.respond(status: "429 Too Many Requests", contentType: "application/json",
                                       body: #"{"uuid":"u","serverErrorCode":"THROTTLED","reason":"slow down","retryAfter":2}"#)
                case 2:
                    connection.respond(status: "503 Service Unavailable", contentType: "text/plain", body: "busy",
                                       extraHeaders: "Retry-After: 1\r\n")
                default:
                    connection.respond(status: "200 OK", contentType: "application/json", body: #"{"records":[]}"#)
                }
            }
        }
        defer { server.stop() }
        let sleeps = RecordedSleeps()
        let answer = try await Self.client(server.url, retry: sleeps.policy()).database(.public, "records/query", body: Self.query, idempotent: true)
        #expect(answer["records"] == .array([]))
        #expect(sleeps.all == [.seconds(2), .seconds(1)], "the server's retryAfter, then the Retry-After header")
        #expect(server.acceptedCount == 1, "one kept-alive connection for all three requests")

        // Without retries the caller sees the codes and the wait.
        answers.withLock { $0 = 0 }
        let throttled = await cloudError { try await Self.client(server.url).database(.public, "records/query", body: Self.query, idempotent: true) }
        #expect(throttled?.code == .requestRateLimited)
        #expect(throttled?.retryAfterSeconds == 2)
        let unavailable = await cloudError { try await Self.client(server.url).database(.public, "records/query", body: Self.query, idempotent: true) }
        #expect(unavailable?.code == .serviceUnavailable)
        #expect(unavailable?.retryAfterSeconds == 1)
    }

    @Test func anUntrustedCertificateIsRefusedWithTheReason() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lcr-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                             "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate]
        openssl.standardError = FileHandle.nullDevice
        openssl.standardOutput = FileHandle.nullDevice
        try openssl.run()
        try #require(await BlockingThread.waitForExit(openssl).succeeded, "openssl made a test certificate")

        let server = try await RemoteTestServer.start(tls: (certificate, key))
        defer { server.removeData() }
        #expect(server.baseURL.scheme == "https")
        let untrusted = WebServicesClient(endpoint: try await server.endpoint(user: "alice"), retry: .never)
        let refused = await cloudError { try await untrusted.database(.public, "users/current", body: nil, idempotent: true) }
        #expect(refused?.code == .networkFailure)
        #expect(refused?.message.hasPrefix("Refused 127.0.0.1:\(server.port)'s TLS certificate: ") == true, "\(refused?.message ?? "")")

        // The same server, its certificate trusted through an extra CA file (LOCALCLOUD_CA_FILE).
        let trusted = WebServicesClient(endpoint: try await server.endpoint(user: "alice"), transport: HTTPTransport(extraCAFile: certificate))
        let me = try await trusted.database(.public, "users/current", body: nil, idempotent: true)
        #expect(me["userRecordName"] == .string("_alice"))
        await server.stop()
    }
}
