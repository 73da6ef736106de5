import Foundation

/// How long to wait after consecutive failures: capped exponential backoff, LocalCloud's one
/// policy for waiting out a server or a database that is away.
///
/// ```swift
/// let backoff = Backoff(first: .milliseconds(500), maximum: .seconds(2))
/// backoff.delay(afterFailures: 1)   // 0.5 s, then 1 s, then 2 s, 2 s…
/// ```
/// Used by ``RetryPolicy`` (with full jitter on top), the outbox, catch-up and reachability
/// workers, the SSE reconnect and the PostgreSQL LISTEN reconnect.
package struct Backoff: Sendable, Equatable {
    /// The wait after the first failure; each further failure doubles it.
    package var first: Duration
    /// The longest wait, however many failures.
    package var maximum: Duration

    package init(first: Duration, maximum: Duration) {
        self.first = first
        self.maximum = maximum
    }

    /// `first × 2^(failures − 1)`, at most ``maximum``; `failures` below 1 counts as 1.
    package func delay(afterFailures failures: Int) -> Duration {
        let doublings = Double(min(max(failures, 1) - 1, 62))
        let seconds = min(maximum.seconds, first.seconds * pow(2, doublings))
        return .microseconds(Int64((seconds * 1_000_000).rounded()))
    }

    /// A uniform wait in `0...delay(afterFailures:)` ("full jitter"): clients that failed together
    /// do not come back together. `random` is in 0..<1.
    package func jitteredDelay(afterFailures failures: Int, random: Double) -> Duration {
        let ceiling = delay(afterFailures: failures).seconds
        return .milliseconds(Int64((ceiling * random * 1000).rounded()))
    }
}
