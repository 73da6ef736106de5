import LocalCloud
import Testing

@Suite struct RetryPolicyTests {
    @Test func retriesOnlyWhereCloudKitRetries() {
        let policy = RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(100), maximumDelay: .milliseconds(300), random: { 0.999 })
        let broken = CloudError(.networkFailure, "reset")
        #expect(policy.delay(after: broken, attempt: 1, idempotent: true) == .milliseconds(100))
        #expect(policy.delay(after: broken, attempt: 2, idempotent: true) == .milliseconds(200))
        #expect(policy.delay(after: broken, attempt: 3, idempotent: true) == .milliseconds(300), "capped")
        #expect(policy.delay(after: broken, attempt: 4, idempotent: true) == nil, "attempts are bounded")
        #expect(policy.delay(after: broken, attempt: 1, idempotent: false) == nil, "a write that may have landed")
        #expect(policy.delay(after: CloudError(.networkUnavailable, "down"), attempt: 1, idempotent: true) == nil)
        #expect(policy.delay(after: CloudError(.serverRecordChanged, "conflict"), attempt: 1, idempotent: true) == nil)
        #expect(policy.delay(after: CloudError(.requestRateLimited, "slow", retryAfterSeconds: 1.5), attempt: 1, idempotent: false)
                == .milliseconds(1500), "the server did not do the work: writes retry too")
        #expect(policy.delay(after: CloudError(.serviceUnavailable, "later", retryAfterSeconds: 60), attempt: 1, idempotent: true) == nil,
                "a long wait goes back to the caller")
    }

    @Test func jitterSpreadsTheWait() {
        let low = RetryPolicy(baseDelay: .seconds(1), random: { 0 })
        let high = RetryPolicy(baseDelay: .seconds(1), random: { 0.5 })
        #expect(low.delay(after: CloudError(.networkFailure, "x"), attempt: 1, idempotent: true) == .zero)
        #expect(high.delay(after: CloudError(.networkFailure, "x"), attempt: 1, idempotent: true) == .milliseconds(500))
    }
}
