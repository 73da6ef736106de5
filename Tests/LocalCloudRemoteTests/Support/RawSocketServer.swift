import Foundation
import LocalCloud
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A TCP listener on a free loopback port whose every connection gets `handle`, on its own
/// thread: the misbehaving servers (silent, HTML-speaking, dying mid-request) no real server is.
final class RawSocketServer: Sendable {
    let port: Int
    private let listener: Int32
    private let accepted = Mutex(0)
    private let connections = Mutex<Set<Int32>>([])

    /// - Parameter handle: owns the connection; the server closes it when `handle` returns.
    init(handle: @escaping @Sendable (RawConnection) -> Void) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw CloudError(.internalError, "socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw CloudError(.internalError, "bind/listen failed")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        // Descriptors are closed only by the thread that uses them, after it is done: a number
        // closed elsewhere could be reused by another test's socket while still in use here.
        let thread = Thread { [self] in
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { break }
                accepted.withLock { $0 += 1 }
                _ = connections.withLock { $0.insert(client) }
                Thread.detachNewThread { [self] in
                    handle(RawConnection(fd: client))
                    connections.withLock { open in
                        open.remove(client)
                        shutdown(client, Int32(SHUT_RDWR))
                        close(client)
                    }
                }
            }
            close(fd)
        }
        thread.start()
    }

    /// Connections accepted so far.
    var acceptedCount: Int { accepted.withLock { $0 } }

    var url: String { "http://127.0.0.1:\(port)" }

    /// Stops accepting and breaks every open connection.
    func stop() {
        // shutdown wakes the accept loop, which then closes the listener.
        shutdown(listener, Int32(SHUT_RDWR))
        connections.withLock { open in
            for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }
}

/// One accepted connection, read and written with blocking calls.
struct RawConnection: Sendable {
    let fd: Int32

    /// Reads one request head and its Content-Length body; `nil` when the peer closed.
    func readRequest() -> String? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = data.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: data[..<end.lowerBound], as: UTF8.self)
                let length = head.split(separator: "\r\n")
                    .first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                while data.count - end.upperBound < length {
                    let count = read(fd, &buffer, buffer.count)
                    guard count > 0 else { return nil }
                    data.append(contentsOf: buffer[..<count])
                }
                return head
            }
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { return nil }
            data.append(contentsOf: buffer[..<count])
        }
    }

    func write(_ text: String) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// A complete HTTP/1.1 response that keeps the connection open.
    func respond(status: String, contentType: String, body: String, extraHeaders: String = "") {
        write("HTTP/1.1 \(status)\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n\(extraHeaders)\r\n\(body)")
    }

    /// Blocks until the peer closes the connection (a server that never answers).
    func waitForClose() {
        var buffer = [UInt8](repeating: 0, count: 1024)
        while read(fd, &buffer, buffer.count) > 0 {}
    }
}
