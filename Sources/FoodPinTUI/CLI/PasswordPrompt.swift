import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Asks for a password on the controlling terminal without echoing it.
enum PasswordPrompt {
    // Read by the SIGINT handler only while a prompt is up; set and cleared on the prompting thread.
    nonisolated(unsafe) private static var interrupted: (Int32, termios)?

    /// The typed line, or `nil` when there is no terminal to ask on.
    static func read(_ prompt: String) -> String? {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return nil }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        _ = prompt.withCString { write(fd, $0, strlen($0)) }
        guard tcsetattr(fd, TCSAFLUSH, &silent) == 0 else { return nil }
        defer { tcsetattr(fd, TCSAFLUSH, &saved) }
        // Ctrl-C while typing would otherwise leave the terminal without echo.
        interrupted = (fd, saved)
        let previous = signal(SIGINT) { _ in
            if let (fd, original) = PasswordPrompt.interrupted {
                var saved = original
                tcsetattr(fd, TCSAFLUSH, &saved)
            }
            _exit(130)
        }
        defer {
            signal(SIGINT, previous)
            interrupted = nil
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while Glibc.read(fd, &byte, 1) == 1, byte != 0x0A, byte != 0x0D {
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
