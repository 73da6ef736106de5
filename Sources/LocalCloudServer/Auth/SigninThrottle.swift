import Foundation
import Synchronization

/// Slows password guessing: after `freeFailures` wrong passwords in a row for one account, sign-in
/// for it is refused (THROTTLED, with `retryAfter`) for a lockout that doubles with each further
/// failure, up to `maximumLockout`. A success clears the account's count.
///
/// Invariant: every entry has `failures >= 1`; entries whose lockout and window ended are dropped
/// when the table grows past `capacity`, so guesses at random names cannot grow it without bound.
package final class SigninThrottle: Sendable {
    package var freeFailures: Int { limits.freeFailures }
    private let limits: Limits
    private let state = Mutex<[Key: Entry]>([:])

    struct Limits: Sendable {
        var freeFailures = 5
        var firstLockout: TimeInterval = 30
        var maximumLockout: TimeInterval = 15 * 60
        /// Failures older than this are forgotten.
        var window: TimeInterval = 15 * 60
        var capacity = 10_000
    }

    private struct Key: Hashable {
        var container: String
        var user: String
    }

    private struct Entry {
        var failures: Int
        var lastFailure: Date
        var lockedUntil: Date?
    }

    package init(freeFailures: Int = 5, firstLockout: TimeInterval = 30, maximumLockout: TimeInterval = 15 * 60) {
        limits = Limits(freeFailures: freeFailures, firstLockout: firstLockout, maximumLockout: maximumLockout)
    }

    /// Seconds until the account may try again; `nil` when it may try now.
    package func retryAfter(container: String, user: String, now: Date) -> TimeInterval? {
        state.withLock { table in
            guard let until = table[Key(container: container, user: user)]?.lockedUntil, until > now else { return nil }
            return until.timeIntervalSince(now)
        }
    }

    /// Counts a wrong password; returns the lockout it starts, if any.
    @discardableResult
    package func recordFailure(container: String, user: String, now: Date) -> TimeInterval? {
        state.withLock { table in
            let key = Key(container: container, user: user)
            var entry = table[key] ?? Entry(failures: 0, lastFailure: now, lockedUntil: nil)
            if now.timeIntervalSince(entry.lastFailure) > limits.window { entry.failures = 0 }
            entry.failures += 1
            entry.lastFailure = now
            var lockout: TimeInterval?
            if entry.failures >= limits.freeFailures {
                let doublings = Double(min(entry.failures - limits.freeFailures, 20))
                lockout = min(limits.firstLockout * pow(2, doublings), limits.maximumLockout)
                entry.lockedUntil = now.addingTimeInterval(lockout!)
            }
            table[key] = entry
            if table.count > limits.capacity { prune(&table, now: now) }
            return lockout
        }
    }

    package func recordSuccess(container: String, user: String) {
        _ = state.withLock { $0.removeValue(forKey: Key(container: container, user: user)) }
    }

    private func prune(_ table: inout [Key: Entry], now: Date) {
        table = table.filter { _, entry in
            (entry.lockedUntil.map { $0 > now } ?? false) || now.timeIntervalSince(entry.lastFailure) <= limits.window
        }
        // Still full of live entries: forget the oldest half rather than grow.
        if table.count > limits.capacity {
            let keep = table.sorted { $0.value.lastFailure > $1.value.lastFailure }.prefix(limits.capacity / 2)
            table = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
        }
    }

    /// The invariant, for tests.
    func checkInvariants() {
        state.withLock { table in
            precondition(table.values.allSatisfy { $0.failures >= 1 })
            precondition(table.count <= limits.capacity)
        }
    }
}
