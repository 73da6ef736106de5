import Synchronization

/// Rings when credentials may have ended: a token revoked, a user signed out or disabled, by this
/// process or (where the store can hear it) another process or node.
///
/// ```swift
/// store.credentialChanges.observe { sessions.recheck() }   // a hint: recheck, never trust it alone
/// store.watchCredentialChanges(container: "iCloud.A")         // hear other processes' changes too
/// ```
///
/// A ring carries no detail and may be spurious (a sign-in also writes): observers recheck the
/// credentials they hold against the store, which stays the source of truth.
package final class CredentialChanges: Sendable {
    private let observers = Mutex<[@Sendable () -> Void]>([])

    package init() {}

    /// Calls `onChange` on every later ring, for the life of this object.
    package func observe(_ onChange: @escaping @Sendable () -> Void) {
        observers.withLock { $0.append(onChange) }
    }

    package func fire() {
        for observer in observers.withLock({ $0 }) { observer() }
    }
}
