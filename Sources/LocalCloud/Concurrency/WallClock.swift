import Foundation

/// The time LocalCloud reads: records' creation and modification dates and the change log in the
/// embedded store, zone and subscription stamps, and the remote asset cache's last use.
///
/// Injected through ``Container/Configuration/clock`` so tests move time forward instead of sleeping:
/// ```swift
/// let time = Mutex(Date(timeIntervalSince1970: 1_767_225_600))
/// configuration.clock = WallClock { time.withLock { $0 } }
/// ```
package struct WallClock: Sendable, Hashable {
    /// Tells clocks apart (configurations are `Hashable`): each clock made is its own.
    private let id: String
    private let read: @Sendable () -> Date

    package init(id: String = UUID().uuidString, _ read: @escaping @Sendable () -> Date) {
        self.id = id
        self.read = read
    }

    package static func == (lhs: WallClock, rhs: WallClock) -> Bool { lhs.id == rhs.id }
    package func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// The current time on this clock.
    package var now: Date { read() }

    /// The system's time, `Date()`.
    package static let system = WallClock(id: "system") { Date() }
}
