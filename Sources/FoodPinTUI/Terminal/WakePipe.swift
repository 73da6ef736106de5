#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A self-pipe: writing one byte wakes the UI loop out of `poll()`.
///
/// Both ends are non-blocking: a full pipe already means a wake-up is pending,
/// so a writer never blocks and the reader drains without waiting.
struct WakePipe: Sendable {
    let readFD: Int32
    let writeFD: Int32

    init() throws(TerminalError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw TerminalError(code: .systemCall, message: "cannot create the wake-up pipe (errno \(errno))")
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    /// Wakes the reader. Safe from any thread and from a signal handler.
    func wake() {
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    /// Reads every pending byte so the next `poll()` sleeps again.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(readFD, &buffer, buffer.count) > 0 {}
    }

    func close() {
        #if canImport(Glibc)
        _ = Glibc.close(readFD)
        _ = Glibc.close(writeFD)
        #else
        _ = Darwin.close(readFD)
        _ = Darwin.close(writeFD)
        #endif
    }
}
