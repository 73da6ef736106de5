import Foundation
import HummingbirdBcrypt
import LocalCloud
import Synchronization

/// bcrypt (hummingbird-auth's `HummingbirdBcrypt`), run on its own threads: a hash takes tens of
/// milliseconds of CPU, which must not stall NIO's event loops nor Swift's cooperative pool.
///
/// ```swift
/// let hash = try await PasswordHasher.standard.hash("s3cret")
/// let ok = await PasswordHasher.standard.verify("s3cret", hash: hash)
/// ```
package struct PasswordHasher: Sendable {
    /// log2 of bcrypt's rounds: 11 is about 0.1 s on one core.
    package var cost: UInt8

    package static let standard = PasswordHasher(cost: 11)

    package init(cost: UInt8) {
        precondition((4...31).contains(cost), "bcrypt cost must be 4…31")
        self.cost = cost
    }

    /// At most one bcrypt per core at a time, so a burst of sign-ins queues instead of piling up threads.
    private static let queue: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "LocalCloud bcrypt"
        queue.maxConcurrentOperationCount = max(1, ProcessInfo.processInfo.activeProcessorCount)
        return queue
    }()

    /// - Throws: `CloudError(.invalidArguments)` for a password bcrypt cannot take whole
    ///   (empty, a NUL byte, or over 72 bytes, which bcrypt would silently cut).
    package func hash(_ password: String) async throws -> String {
        try Self.validate(password)
        let cost = cost
        return await Self.run { Bcrypt.hash(password, cost: cost) }
    }

    /// Whether `password` matches `hash`. A `nil` hash (no such account) still costs one bcrypt,
    /// so timing does not tell which accounts exist.
    package func verify(_ password: String, hash: String?) async -> Bool {
        let valid = (try? Self.validate(password)) != nil
        let cost = cost
        let matches = await Self.run { Bcrypt.verify(password, hash: hash ?? Self.decoy(cost: cost)) }
        return valid && hash != nil && matches
    }

    static func validate(_ password: String) throws {
        guard !password.isEmpty else { throw CloudError(.invalidArguments, "The password is empty") }
        guard !password.utf8.contains(0) else { throw CloudError(.invalidArguments, "The password contains a NUL character") }
        guard password.utf8.count <= 72 else {
            throw CloudError(.invalidArguments, "The password is longer than 72 bytes, which bcrypt cannot use whole")
        }
    }

    /// A hash of a password nobody knows, at the same cost, checked against when there is no account.
    private static func decoy(cost: UInt8) -> String {
        decoys.withLock { decoys in
            if let hash = decoys[cost] { return hash }
            let hash = Bcrypt.hash(Secret.apiToken(), cost: cost)
            decoys[cost] = hash
            return hash
        }
    }

    private static let decoys = Mutex<[UInt8: String]>([:])

    private static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.addOperation { continuation.resume(returning: work()) }
        }
    }
}
