import Foundation
import LocalCloud
import Synchronization

/// A wall clock that moves only when the test says: time-dependent behaviour (last use, stamps)
/// is tested by advancing it instead of sleeping.
final class TestClock: Sendable {
    private let time: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_767_225_600)) { time = Mutex(start) }

    var now: Date { time.withLock { $0 } }

    func advance(by seconds: TimeInterval) { time.withLock { $0 += seconds } }

    /// The clock as LocalCloud takes it (``Container/Configuration/clock``).
    var wallClock: WallClock { WallClock { self.now } }
}
