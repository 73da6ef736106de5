#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FoodPinCore

/// Drives a ``TerminalApp`` on the calling thread, which becomes the only thread that touches ncurses.
///
/// The loop sleeps in `poll()` on stdin and a self-pipe. Keys, resizes, posted
/// messages and (only while the app asks for them) ticks wake it; each wake-up
/// applies every pending event, then draws the app's grid, cell-diffed.
///
/// ```swift
/// let code = try TerminalRuntime(app: app, colorMode: .colors256).run()
/// ```
///
/// The first event an app receives is `.resize` with the initial size, before
/// the first frame: the place to start background work, since it comes with a sink.
/// If the app ignores Ctrl-C, the runtime quits with 130; SIGINT, SIGTERM and
/// SIGHUP quit with 128 + the signal. The terminal is restored in every case.
final class TerminalRuntime<App: TerminalApp> {
    private let app: App
    private let requestedColorMode: ColorMode
    private let imageMode: ImageMode
    private let clock = ContinuousClock()

    /// - Parameter imageMode: with a pixel mode, the grid's photos are placed after each text frame.
    init(app: App, colorMode: ColorMode, imageMode: ImageMode = .symbols) {
        self.app = app
        self.requestedColorMode = colorMode
        self.imageMode = imageMode
    }

    /// Runs until the app quits or a signal stops it.
    ///
    /// - Returns: the app's exit code, or 128 + signal number.
    /// - Throws: ``TerminalError`` when stdin/stdout are not a terminal or ncurses cannot start.
    func run() throws(TerminalError) -> Int32 {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw TerminalError(code: .notATerminal, message: "the interactive screen needs a terminal on stdin and stdout")
        }
        let queue = MessageQueue<App.Message>(pipe: try WakePipe())
        defer { queue.close() }
        let signals = SignalRelay(wakeFD: queue.pipe.writeFD)
        defer { signals.restore() }
        let screen = try CursesScreen(requestedColorMode: requestedColorMode)
        defer { screen.close() }

        return loop(screen: screen, queue: queue, signals: signals)
    }

    private func loop(screen: CursesScreen, queue: MessageQueue<App.Message>, signals: SignalRelay) -> Int32 {
        let sink = MessageSink<App.Message> { [queue] message in queue.post(message) }
        let renderer = CursesRenderer(colorMode: screen.colorMode, hasDefaultColors: screen.hasDefaultColors)
        let painter = ImagePainter(mode: imageMode)
        defer { painter.clear() }
        let links = LinkPainter(colorMode: screen.colorMode)
        var size = (width: screen.width, height: screen.height)
        var nextTick: ContinuousClock.Instant?

        func deliver(_ event: TerminalEvent) -> Bool {
            guard let message = app.message(for: event) else { return false }
            app.apply(message, sink: sink)
            return true
        }
        func resized() {
            let now = (width: screen.width, height: screen.height)
            guard now != size else { return }
            size = now
            renderer.invalidate()
            painter.invalidate()
            links.invalidate()
            _ = deliver(.resize(width: now.width, height: now.height))
        }

        _ = deliver(.resize(width: size.width, height: size.height))
        var fds = [
            pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
            pollfd(fd: queue.pipe.readFD, events: Int16(POLLIN), revents: 0),
        ]
        while !app.shouldQuit {
            let grid = app.view(width: size.width, height: size.height)
            renderer.draw(grid)
            painter.paint(grid, repaint: renderer.repaint(rows:))
            links.paint(grid, repaint: renderer.repaint(rows:))

            if let interval = app.tickInterval {
                if nextTick == nil { nextTick = clock.now.advanced(by: interval) }
            } else {
                nextTick = nil
            }
            fds[0].revents = 0
            fds[1].revents = 0
            let ready = poll(&fds, 2, nextTick.map(timeout(until:)) ?? -1)
            if ready < 0, errno != EINTR {
                return 1
            }

            if fds[1].revents != 0 { queue.pipe.drain() }
            for signalNumber in signals.take() {
                if signalNumber == SIGWINCH {
                    if screen.updateSize() { resized() }
                } else {
                    return 128 + signalNumber
                }
            }
            for message in queue.drain() {
                app.apply(message, sink: sink)
            }
            if fds[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0, fds[0].revents & Int16(POLLIN) == 0 {
                return 129  // the terminal went away
            }
            for input in screen.readInput() {
                switch input {
                case .resize:
                    resized()
                case .key(let key):
                    if !deliver(.key(key)), key == .control("c") { return 130 }
                }
                if app.shouldQuit { break }
            }
            if let due = nextTick, clock.now >= due {
                nextTick = nil
                _ = deliver(.tick)
            }
        }
        return app.exitCode
    }

    /// Milliseconds from now until `instant`, rounded up, for `poll()`.
    private func timeout(until instant: ContinuousClock.Instant) -> Int32 {
        let remaining = clock.now.duration(to: instant)
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }
}
