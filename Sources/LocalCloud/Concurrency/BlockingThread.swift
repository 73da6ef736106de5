import Foundation

/// The one place where a blocking call (a child process's exit, a blocking socket, a C library
/// that waits) is awaited from async code.
///
/// Swift's cooperative pool has one thread per core, two on a small server: a task that blocks
/// one of them (in `waitpid`, `read`, a semaphore) takes that core from every other task, so
/// push delivery and request handlers queue behind it. Here the call runs on a thread of its own,
/// and the awaiting task suspends instead.
///
/// ```swift
/// let status = try await BlockingThread.run("initdb") { try spawnAndWait(arguments) }
/// ```
package enum BlockingThread {
    /// Runs `body` on a new thread named `label` and returns its result.
    ///
    /// The thread is not cancelled with the task: `body` should itself end (a timeout, a closed
    /// descriptor), since a blocked system call cannot be interrupted safely.
    package static func run<Value: Sendable>(
        _ label: String, _ body: @escaping @Sendable () throws -> Value
    ) async throws -> Value {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
            // A raw thread: the wait must not hold a cooperative-pool or Dispatch worker thread.
            let thread = Thread {
                continuation.resume(with: Result { try body() })
            }
            thread.name = "LocalCloud.blocking.\(label)"
            thread.start()
        }
    }

    /// ``run(_:_:)`` for a body that cannot fail.
    package static func run<Value: Sendable>(_ label: String, _ body: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
            let thread = Thread {
                continuation.resume(returning: body())
            }
            thread.name = "LocalCloud.blocking.\(label)"
            thread.start()
        }
    }
}
