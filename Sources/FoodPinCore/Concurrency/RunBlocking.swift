import Synchronization

/// Runs async work from synchronous code and waits for its result.
///
/// For command-line entry points whose `run()` must stay synchronous (the screen owns the main
/// thread): the caller blocks a thread outside the cooperative pool, and the work runs on the pool.
/// Never call it from async code.
///
/// ```swift
/// let page = try runBlocking { try await backend.firstPage(limit: 50) }
/// ```
package func runBlocking<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) throws -> Value {
    let box = BlockingResult<Value>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do { box.set(.success(try await work())) } catch { box.set(.failure(error)) }
        done.signal()
    }
    done.wait()
    return try box.get()
}

private final class BlockingResult<Value: Sendable>: Sendable {
    private let result = Mutex<Result<Value, any Error>?>(nil)

    func set(_ value: Result<Value, any Error>) { result.withLock { $0 = value } }
    func get() throws -> Value {
        guard let result = result.withLock({ $0 }) else { throw CancellationError() }
        return try result.get()
    }
}

import Dispatch
