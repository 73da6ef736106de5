import Foundation
import Synchronization

/// How far this machine's wall clock is from the server's, from the `Date` header of its answers.
///
/// ```swift
/// let clock = ServerClock()
/// clock.observe(serverDate: response.serverDate, at: clock.local.now)
/// clock.offset          // +18000: the server's clock reads 5 h later than this one
/// clock.now()           // this machine's time corrected by that offset
/// ```
///
/// Nothing a remote store does depends on the wall clock being right (waits, backoffs and
/// timeouts use the monotonic clock; tokens are checked by the server, against its own clock).
/// What it shows and stamps does: a change queued offline is stamped with ``now()``, so it sorts
/// and reads right next to the server's rows, and the app says when the clock is off.
package final class ServerClock: Sendable {
    /// The latest measurement: server minus client, in seconds (to the second: `Date` has no more).
    private let measured = Mutex<TimeInterval?>(nil)

    /// This machine's clock, which the offset corrects (the container's ``Container/Configuration/clock``).
    package let local: WallClock

    package init(local: WallClock = .system) {
        self.local = local
    }

    /// The server's clock minus this machine's, `nil` before an answer carried a `Date`.
    package var offset: TimeInterval? { measured.withLock { $0 } }

    /// This machine's time, corrected by ``offset`` when there is one.
    package func now() -> Date {
        local.now.addingTimeInterval(offset ?? 0)
    }

    /// Takes a measurement from an answer's `Date` header, received at `localDate`.
    func observe(serverDate: Date?, at localDate: Date) {
        guard let serverDate else { return }
        // The header is truncated to the second: half a second is the best guess of its fraction.
        let offset = serverDate.timeIntervalSince(localDate) + 0.5
        measured.withLock { $0 = offset }
    }

    /// An HTTP date (RFC 9110's IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), `nil` for anything else.
    package static func parseHTTPDate(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]), let year = Int(parts[3]) else { return nil }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let month = months.firstIndex(of: String(parts[2])) else { return nil }
        let time = parts[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        guard let utc = TimeZone(identifier: "UTC") else { return nil }
        calendar.timeZone = utc
        return calendar.date(from: DateComponents(year: year, month: month + 1, day: day, hour: time[0], minute: time[1], second: time[2]))
    }
}
