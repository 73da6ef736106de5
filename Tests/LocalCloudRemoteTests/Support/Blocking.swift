import Foundation
import Testing
import LocalCloud
import Synchronization

/// The CloudError `body` throws, or a test failure naming what it returned instead.
func cloudError<T: Sendable>(_ body: @Sendable () async throws -> T) async -> CloudError? {
    do {
        let value = try await body()
        Issue.record("expected a CloudError, got \(value)")
        return nil
    } catch let error as CloudError {
        return error
    } catch {
        Issue.record("expected a CloudError, got \(error)")
        return nil
    }
}

/// Sleeps a retry policy asked for, recorded instead of waited.
final class RecordedSleeps: Sendable {
    private let sleeps = Mutex<[Duration]>([])
    var all: [Duration] { sleeps.withLock { $0 } }

    func policy(maxAttempts: Int = 3) -> RetryPolicy {
        RetryPolicy(maxAttempts: maxAttempts, random: { 0.5 }, sleep: { duration in self.sleeps.withLock { $0.append(duration) } })
    }
}


