import Foundation

/// The one wall clock LocalCloud reads: records' creation and modification dates and the change log
/// in the stores, zone and subscription stamps, the outbox's queue times, the response cache's and
/// the asset cache's last use, and on the server the expiry of tokens and sessions.
///
/// Injected (``Container/Configuration/clock``, the server's authenticator) so tests move time
/// forward instead of sleeping; ``ManualClock`` is the clock tests move:
/// ```swift
/// let time = ManualClock()
/// configuration.clock = time.wallClock
/// time.advance(by: 3600)   // an hour later, at once
/// ```
///
/// Waits for a wall-clock instant (a token's expiry) sleep for the distance to it and also wake when
/// the clock is moved (``onAdvance(_:)``), so a moved clock is noticed at once.
package struct WallClock: Sendable, Hashable {
    /// Tells clocks apart (configurations are `Hashable`): each clock made is its own.
    private let id: String
    private let read: @Sendable () -> Date
    private let observe: @Sendable (@escaping @Sendable () -> Void) -> Void

    package init(id: String = UUID().uuidString, _ read: @escaping @Sendable () -> Date) {
        self.init(id: id, read: read, onAdvance: { _ in })
    }

    /// A clock that says when it is moved: `onAdvance` registers a handler to call after each move.
    package init(id: String = UUID().uuidString, read: @escaping @Sendable () -> Date,
                 onAdvance: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.id = id
        self.read = read
        self.observe = onAdvance
    }

    /// Calls `handler` each time the clock is moved by hand (never for the system clock, whose time
    /// passes on its own): waiters for an instant recompute their wait.
    package func onAdvance(_ handler: @escaping @Sendable () -> Void) {
        observe(handler)
    }

    package static func == (lhs: WallClock, rhs: WallClock) -> Bool { lhs.id == rhs.id }
    package func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// The current time on this clock.
    package var now: Date { read() }

    /// The system's time, `Date()`.
    package static let system = WallClock(id: "system") { Date() }
}
