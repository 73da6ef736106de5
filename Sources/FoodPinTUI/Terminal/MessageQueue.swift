import Synchronization

/// The thread-safe inbox of the UI loop: background work posts, the UI thread drains.
///
/// Posting appends under a lock and wakes the loop through the self-pipe, so
/// results are applied without a keypress while an idle loop sleeps in `poll()`.
/// After ``close()``, posts are dropped: the pipe's descriptors may already
/// belong to another file.
final class MessageQueue<Message: Sendable>: Sendable {
    private struct State {
        var messages: [Message] = []
        var isClosed = false
    }

    private let state = Mutex(State())
    let pipe: WakePipe

    init(pipe: WakePipe) {
        self.pipe = pipe
    }

    func post(_ message: Message) {
        state.withLock { state in
            guard !state.isClosed else { return }
            state.messages.append(message)
            pipe.wake()
        }
    }

    /// Everything posted so far, oldest first.
    func drain() -> [Message] {
        state.withLock { state in
            defer { state.messages.removeAll(keepingCapacity: true) }
            return state.messages
        }
    }

    /// Stops accepting messages and closes the pipe.
    func close() {
        state.withLock { state in
            guard !state.isClosed else { return }
            state.isClosed = true
            state.messages.removeAll()
            pipe.close()
        }
    }
}
