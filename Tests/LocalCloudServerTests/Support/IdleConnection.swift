import Foundation

/// A TCP client that connects and sends nothing, as a slowloris client's first moments look.
enum IdleConnection {
    /// Connects to the loopback `port` and blocks until the server closes the connection (true) or
    /// `seconds` pass (false). Call it off the cooperative pool (``BlockingThread``).
    static func waitUntilClosed(port: Int, upTo seconds: Int) throws -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw POSIXError(.init(rawValue: errno) ?? .ECONNREFUSED) }
        var limit = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var byte: UInt8 = 0
        // 0: the server closed it; -1 with EAGAIN: the limit passed with the connection still open.
        return recv(descriptor, &byte, 1, 0) == 0
    }
}
