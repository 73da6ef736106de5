import Foundation

/// When and how long a remote call waits before trying again: only where CloudKit retries
/// (the server asked for it with THROTTLED or TRY_AGAIN_LATER, or a connection broke during a
/// request that is safe to send twice), with exponential backoff and full jitter.
///
/// ```swift
/// let policy = RetryPolicy(maxAttempts: 3)
/// let delay = policy.delay(after: error, attempt: 1, idempotent: true)  // nil: give up
/// ```
///
/// `networkUnavailable` (nothing listening, no route, no DNS) is not retried: the caller learns at
/// once that the server is away, and the remote store's outbox takes over.
package struct RetryPolicy: Sendable {
    /// Attempts in all, the first included.
    package var maxAttempts: Int
    /// The first backoff; each retry doubles it, up to ``maximumDelay``.
    package var baseDelay: Duration
    package var maximumDelay: Duration
    /// A `Retry-After` longer than this is not waited for: the error goes to the caller.
    package var longestServerDelay: Duration
    /// A number in 0..<1 (injected so tests see exact delays).
    package var random: @Sendable () -> Double
    /// Waits (injected so tests do not wait).
    package var sleep: @Sendable (Duration) async -> Void

    package init(
        maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(250), maximumDelay: Duration = .seconds(4),
        longestServerDelay: Duration = .seconds(10),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        sleep: @escaping @Sendable (Duration) async -> Void = { duration in try? await Task.sleep(for: duration) }
    ) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.longestServerDelay = longestServerDelay
        self.random = random
        self.sleep = sleep
    }

    /// No retries at all.
    package static let never = RetryPolicy(maxAttempts: 1)

    /// How long to wait before attempt `attempt + 1`, or `nil` to give up with `error`.
    package func delay(after error: CloudError, attempt: Int, idempotent: Bool) -> Duration? {
        guard attempt < maxAttempts else { return nil }
        switch error.code {
        case .requestRateLimited, .serviceUnavailable, .zoneBusy:
            // The server did not do the work; it says when to come back.
            if let seconds = error.retryAfterSeconds {
                let asked = Duration.milliseconds(Int64((seconds * 1000).rounded(.up)))
                return asked <= longestServerDelay ? asked : nil
            }
            return backoff(attempt: attempt)
        case .networkFailure where idempotent:
            return backoff(attempt: attempt)
        default:
            return nil
        }
    }

    /// Full jitter: a uniform wait in 0...min(maximum, base × 2^(attempt-1)), by ``Backoff``.
    func backoff(attempt: Int) -> Duration {
        Backoff(first: baseDelay, maximum: maximumDelay).jitteredDelay(afterFailures: attempt, random: random())
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
