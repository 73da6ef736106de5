#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Holds a stopped test server's loopback port until it comes back: a TCP socket bound to it but
/// not listening, so clients still get "connection refused" (the server is down) while no other
/// server in the machine (another test's, a PostgreSQL cluster) can take the port meanwhile.
enum PortPlaceholder {
    /// The placeholder socket of each held port.
    private static let held = Mutex<[Int: Int32]>([:])
    /// The ports this process's test servers own, running or stopped, until their data is removed.
    private static let claimed = Mutex<Set<Int>>([])

    /// A port for a new test server, below the kernel's ephemeral range (32768–60999), that no
    /// other test server of this process owns. The placeholder alone does not keep another server
    /// off a stopped server's port: with SO_REUSEADDR on both, Linux lets a listening socket bind
    /// beside a bound one that is not listening, and the restart then met "Address already in use".
    static func claimNewPort() -> Int {
        claimed.withLock { claimed in
            while true {
                let port = Int.random(in: 20_000..<32_000)
                if claimed.insert(port).inserted { return port }
            }
        }
    }

    /// Gives a claimed port back (its server's data is gone, or it never started on it).
    static func unclaim(_ port: Int) {
        _ = claimed.withLock { $0.remove(port) }
    }

    /// Binds 127.0.0.1:`port` without listening. SO_REUSEADDR lets it bind past the server's
    /// connections in TIME_WAIT; a kernel choosing a free port for another server (port 0) still
    /// passes over a bound one. Does nothing if it cannot (a restart then retries until its deadline).
    static func hold(_ port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            return
        }
        let previous = held.withLock { held in
            defer { held[port] = fd }
            return held[port]
        }
        if let previous { close(previous) }
    }

    /// Lets go of the port (before the server binds it again, or for good).
    static func release(_ port: Int) {
        if let fd = held.withLock({ $0.removeValue(forKey: port) }) { close(fd) }
    }
}
