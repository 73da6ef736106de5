import Testing
@testable import LocalCloud

/// The one backoff policy: the waits each user of it had when it was written by hand.
@Suite struct BackoffTests {
    @Test func doublesFromTheFirstWaitUpToTheMaximum() {
        let backoff = Backoff(first: .milliseconds(500), maximum: .seconds(2))
        #expect((0...5).map { backoff.delay(afterFailures: $0) }
                == [.milliseconds(500), .milliseconds(500), .seconds(1), .seconds(2), .seconds(2), .seconds(2)])
        #expect(backoff.delay(afterFailures: .max) == .seconds(2), "no overflow after many failures")
    }

    @Test func theWaitsOfTheOutboxTheSSEReconnectAndTheRetriesAreUnchanged() {
        // The outbox and catch-up workers: min(30, 0.5 × 2^failures) seconds.
        #expect((1...8).map { BackgroundWorker.backoff.delay(afterFailures: $0) }
                == [1, 2, 4, 8, 16, 30, 30, 30].map { Duration.seconds($0) })
        // The SSE reconnect: min(2, 0.25 × 2^failures) seconds.
        #expect((1...4).map { RemoteChangeReader.reconnectBackoff.delay(afterFailures: $0) }
                == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(2)])
        // RetryPolicy: full jitter under base × 2^(attempt − 1).
        let policy = RetryPolicy(random: { 0.5 })
        #expect([1, 2, 3, 5, 9].map { policy.backoff(attempt: $0) }
                == [.milliseconds(125), .milliseconds(250), .milliseconds(500), .seconds(2), .seconds(2)])
    }
}
