#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CNCurses
import FoodPinCore

/// Asks the terminal what graphics it speaks, before the screen starts: the kitty graphics
/// query and DA1 (``ImageModeDecision/query``), read back in raw mode with a short timeout.
///
/// ```swift
/// let replies = TerminalImageProbe.ask()                       // nil: nothing answered in time
/// let mode = ImageModeDecision.decide(.auto, environment: env, replies: replies)
/// ```
enum TerminalImageProbe {
    /// Long enough for a terminal over SSH, short enough not to be noticed at start-up.
    /// DA1's reply ends the wait at once on any terminal that answers.
    static let timeoutMilliseconds: Int32 = 500

    /// - Parameter expectsKitty: the environment hints at kitty graphics: stop at its OK.
    static func ask(timeoutMilliseconds: Int32 = timeoutMilliseconds, expectsKitty: Bool = false) -> TerminalReplies? {
        let input = STDIN_FILENO
        guard isatty(input) == 1, isatty(STDOUT_FILENO) == 1 else { return nil }
        var saved = termios()
        guard tcgetattr(input, &saved) == 0 else { return nil }
        var raw = saved
        cfmakeraw(&raw)
        guard tcsetattr(input, TCSANOW, &raw) == 0 else { return nil }
        defer { _ = tcsetattr(input, TCSANOW, &saved) }

        var query = ImageModeDecision.query
        let written = query.withUTF8 { bytes in write(STDOUT_FILENO, bytes.baseAddress, bytes.count) }
        guard written > 0 else { return nil }

        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        let deadline = Int64(clock.tv_sec) * 1000 + Int64(clock.tv_nsec) / 1_000_000 + Int64(timeoutMilliseconds)
        while !TerminalReplies.isComplete(bytes, expectsKitty: expectsKitty) {
            clock_gettime(CLOCK_MONOTONIC, &clock)
            let remaining = deadline - (Int64(clock.tv_sec) * 1000 + Int64(clock.tv_nsec) / 1_000_000)
            guard remaining > 0 else { break }
            var fd = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let ready = poll(&fd, 1, Int32(remaining))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { break }
            let count = read(input, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return bytes.isEmpty ? nil : TerminalReplies(parsing: bytes)
    }

    /// One cell's size in pixels from `TIOCGWINSZ`, or the fallback when the terminal does not say.
    static func cellPixelSize() -> CellPixelSize {
        var width: Int32 = 0, height: Int32 = 0, rows: Int32 = 0, columns: Int32 = 0
        guard cn_window_pixels(STDOUT_FILENO, &width, &height) == 0,
              cn_window_size(STDOUT_FILENO, &rows, &columns) == 0 else { return .fallback }
        return CellPixelSize.from(pixelWidth: Int(width), pixelHeight: Int(height), columns: Int(columns), rows: Int(rows))
    }
}
