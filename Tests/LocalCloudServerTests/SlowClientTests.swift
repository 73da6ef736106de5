import Foundation
import Glibc
import Testing
@testable import LocalCloudServer

@Suite("slow clients")
struct SlowClientTests {
    /// A client trickling header bytes is disconnected after the read timeout, and others are served meanwhile.
    @Test func slowlorisIsDisconnected() async throws {
        let server = try await TestServer.start { $0.readTimeout = .seconds(3) }
        defer { Task { await server.stop() } }
        let port = try #require(URLComponents(string: server.baseURL)?.port)
        // Still a pool thread (about 3 s): on a BlockingThread the server's close went unseen in 2 of
        // the loaded full-suite runs (15 s, the whole trickle), a flake not yet explained.
        let closedAfter = try await Task.detached { try Self.trickle(port: port, interval: 0.25, limit: 60) }.value
        // Closed by the server near its 3 s deadline, long before the 60 trickled bytes (15 s) are sent.
        #expect(closedAfter < 10)
        // The client's pooled connection idled past the same 3 s timeout, and the server may have
        // closed it just as the client reuses it: a fresh attempt then gets a new connection.
        var status: Int?
        for _ in 0..<3 where status == nil {
            status = try? await server.call(endpoint: "records/query", body: #"{"query": {"recordType": "Restaurant"}}"#).status
        }
        #expect(status == 200)
    }

    /// Sends one header byte every `interval` seconds; returns the seconds until the server closed.
    static func trickle(port: Int, interval: Double, limit: Int) throws -> Double {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let start = Date()
        let head = Array("POST /database/1/x/development/public/records/query HTTP/1.1\r\nHost: a\r\nX-Slow: ".utf8)
        _ = head.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        for _ in 0..<limit {
            var pollSet = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            // Wait one interval for the server to close; a readable socket with 0 bytes means it did.
            if poll(&pollSet, 1, Int32(interval * 1000)) > 0 {
                var byte: UInt8 = 0
                if recv(fd, &byte, 1, 0) <= 0 { return Date().timeIntervalSince(start) }
            }
            var next = UInt8(ascii: "a")
            if send(fd, &next, 1, Int32(MSG_NOSIGNAL)) < 0 { return Date().timeIntervalSince(start) }
        }
        return Date().timeIntervalSince(start)
    }
}

