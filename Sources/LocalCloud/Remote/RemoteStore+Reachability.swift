import Foundation

// Whether the server answers: learned from every request, and from the push stream between them.
extension RemoteStore {
    /// Records whether the last request reached the server. A change is told to the watchers;
    /// the first answer after a network failure also starts the catch-up and the outbox's upload.
    func noteReachable(_ isReachable: Bool) {
        guard reachable.exchange(isReachable, ordering: .relaxed) != isReachable else { return }
        if isReachable {
            startCatchUp()
            if (try? outbox.next()) != nil { startUploading() }
        }
        for watcher in reachabilityWatchers.withLock({ Array($0.values) }) { watcher.yield(isReachable) }
    }

    /// Whether the server answers now, then each time that changes (`false`: reads come from the
    /// cache and changes wait in the outbox). Ends when the store closes or the caller stops.
    package func reachabilityChanges() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream<Bool>.makeStream(bufferingPolicy: .bufferingNewest(8))
        let id = UUID()
        reachabilityWatchers.withLock { watchers in
            watchers[id] = continuation
            // Under the lock: a change now is either before this value or yielded after it.
            continuation.yield(reachable.load(ordering: .relaxed))
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.reachabilityWatchers.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    /// The push stream ended or could not open: the server may be gone (or only the stream
    /// dropped, as proxies do). One cheap request tells which, so the screen says `offline`
    /// without waiting for the user's next action.
    func streamLost() {
        if reachable.load(ordering: .relaxed) { probe() }
    }

    /// The push stream opened: a server thought away is back. The stream is the server's answer
    /// (authorized, `text/event-stream`), so it marks the server reachable with no request of its
    /// own, which starts the catch-up and the upload; in the prober's task, off the stream's thread.
    func streamOpened() {
        guard !reachable.load(ordering: .relaxed) else { return }
        prober.start { [self] in
            noteReachable(true)
            return false
        }
    }

    /// One `changes/database` exchange in the prober's task, through ``reaching(_:)``.
    func probe() {
        prober.start { [self] in
            _ = try? await reaching { try await databaseToken(scope: .public, since: nil) }
            return false
        }
    }
}
