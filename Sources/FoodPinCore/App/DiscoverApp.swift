import Foundation

/// The Discover app as the terminal runtime drives it: events in, ``update(_:_:)``, effects out,
/// ``view(_:width:height:)`` drawn.
///
/// ```swift
/// let handler = DiscoverEffectHandler(backend: CloudDiscoverBackend(container: container), thumbnails: loader)
/// let app = DiscoverApp(config: config, handler: handler)
/// try TerminalRuntime(app: app).run()   // the runtime calls message(for:), apply, view
/// ```
package final class DiscoverApp: TerminalApp {
    package typealias Message = Msg

    package private(set) var state: AppState
    private let handler: any EffectHandler
    private let clock: @Sendable () -> Date
    private let clockOffset: (@Sendable () -> TimeInterval?)?
    private let debugStatus: (@Sendable () -> String)?
    private var started = false
    private var lastSink: MessageSink<Msg>?

    /// - Parameters:
    ///   - config: terminal capabilities, user, services.
    ///   - handler: runs effects (queries, thumbnails, saves) in the background.
    ///   - clock: the time "added 5 min ago" is measured from; injected for tests.
    ///   - clockOffset: on a server, its clock minus `clock`, in seconds (``Container``'s
    ///     `serverClockOffset`): relative times use the server's clock, and the status line
    ///     says when this machine's is off.
    ///   - debugStatus: text for the title bar under `--debug`, e.g. the cache counters.
    package init(
        config: AppConfig, handler: any EffectHandler, width: Int = 80, height: Int = 24,
        clock: @escaping @Sendable () -> Date = { Date() }, clockOffset: (@Sendable () -> TimeInterval?)? = nil,
        debugStatus: (@Sendable () -> String)? = nil
    ) {
        state = AppState(config: config, width: width, height: height, now: clock())
        self.handler = handler
        self.clock = clock
        self.clockOffset = clockOffset
        self.debugStatus = debugStatus
    }

    /// The time now, by the server's clock when it is known.
    private func updateClock() {
        state.clockOffset = clockOffset?()
        state.now = clock().addingTimeInterval(state.clockOffset ?? 0)
    }

    package func message(for event: TerminalEvent) -> Msg? {
        switch event {
        case .key(let key): .key(key)
        case .resize(let width, let height): .resize(width: width, height: height)
        case .tick: state.isSpinnerVisible ? .tick : nil
        }
    }

    package func apply(_ message: Msg, sink: MessageSink<Msg>) {
        lastSink = sink
        if !started {
            started = true
            run(.start, sink: sink)
        }
        run(message, sink: sink)
    }

    private func run(_ message: Msg, sink: MessageSink<Msg>) {
        updateClock()
        for effect in update(&state, message) {
            handler.perform(effect, sink: sink)
        }
    }

    package func view(width: Int, height: Int) -> Grid {
        if (width != state.width || height != state.height), let sink = lastSink {
            // The runtime's size is the truth; re-lay out before drawing.
            run(.resize(width: width, height: height), sink: sink)
        }
        updateClock()
        if state.config.debug { state.debugStatus = debugStatus?() }
        return FoodPinCore.view(state, width: width, height: height)
    }

    package var shouldQuit: Bool { state.shouldQuit }
    package var exitCode: Int32 { state.exitCode }

    /// Spinner frames every 80 ms, and no ticks at all while idle.
    package var tickInterval: Duration? { state.isSpinnerVisible ? .milliseconds(80) : nil }
}
