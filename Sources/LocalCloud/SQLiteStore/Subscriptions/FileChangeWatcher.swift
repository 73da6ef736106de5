import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Rings when a file in one directory whose name starts with a prefix is written by any process on
/// this host: how an SQLite store hears another process's commit (each commit writes its `-wal`
/// file) without polling.
///
/// ```swift
/// let watcher = FileChangeWatcher(directory: "/var/lib/localcloud/iCloud.A", namePrefix: "cloud.sqlite") { signal.fire() }
/// watcher?.stop()
/// ```
///
/// inotify on the directory, read on a thread of its own (``BlockingThread``) that waits in `poll`
/// on it and on a pipe that ``stop()`` writes to, so it ends at once and never holds a pool thread.
/// WAL mode needs every connection on one host (its shared memory), so inotify sees every writer.
/// `nil` when inotify cannot be had (not Linux, out of watches or descriptors): the caller polls.
/// (The server's `DirectoryWatch` is the process-long form of the same for identity files.)
/// One inotify instance per watched store: past `fs.inotify.max_user_instances` (128 by default,
/// shared with every other inotify user of the account) a store's readers fall back to polling.
final class FileChangeWatcher: Sendable {
    private struct State {
        var running = true
        var stopWriter: Int32
    }

    private let state: Mutex<State>

    init?(directory: String, namePrefix: String, onChange: @escaping @Sendable () -> Void) {
        #if canImport(Glibc)
        let inotify = inotify_init1(Int32(O_NONBLOCK | O_CLOEXEC))
        guard inotify >= 0 else { return nil }
        guard inotify_add_watch(inotify, directory, UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO)) >= 0 else {
            close(inotify)
            return nil
        }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            close(inotify)
            return nil
        }
        // Not inherited by a child process (`localcloud serve` starts PostgreSQL tools).
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let stopReader = ends[0]
        state = Mutex(State(stopWriter: ends[1]))
        Task.detached { [self] in
            await BlockingThread.run("file-watch") {
                Self.watch(inotify: inotify, stopReader: stopReader, prefix: Array(namePrefix.utf8), onChange: onChange)
            }
            // The loop ended: by stop(), or by an error (then the caller goes back to polling).
            let writer = self.state.withLock { state -> Int32 in
                state.running = false
                defer { state.stopWriter = -1 }
                return state.stopWriter
            }
            if writer >= 0 { close(writer) }
        }
        #else
        return nil
        #endif
    }

    /// Whether the watcher still hears every write (its thread did not end on an error).
    var isRunning: Bool { state.withLock { $0.running } }

    /// Ends the watching thread; its descriptors close with it.
    func stop() {
        let writer = state.withLock { state -> Int32 in
            defer { state.stopWriter = -1 }
            return state.stopWriter
        }
        guard writer >= 0 else { return }
        #if canImport(Glibc)
        var byte: UInt8 = 1
        _ = write(writer, &byte, 1)
        close(writer)
        #endif
    }

    #if canImport(Glibc)
    /// Waits for events until the stop pipe is written or closed; rings once per batch of events
    /// with a matching name.
    private static func watch(inotify: Int32, stopReader: Int32, prefix: [UInt8], onChange: @Sendable () -> Void) {
        defer {
            close(inotify)
            close(stopReader)
        }
        var fds = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: stopReader, events: Int16(POLLIN), revents: 0)]
        let capacity = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        defer { buffer.deallocate() }
        let headerSize = MemoryLayout<inotify_event>.size
        while true {
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 { return }
            guard fds[0].revents != 0 else { continue }
            // Drain every queued event; one ring covers them all.
            var heard = false
            while true {
                let count = read(inotify, buffer, capacity)
                if count > 0 {
                    // inotify_event: wd, mask, cookie, len (UInt32 at byte 12), then the name.
                    var offset = 0
                    while offset + headerSize <= count {
                        let nameLength = Int(buffer.load(fromByteOffset: offset + 12, as: UInt32.self))
                        let name = UnsafeRawBufferPointer(start: buffer + offset + headerSize,
                                                          count: min(nameLength, count - offset - headerSize))
                        if name.count >= prefix.count, zip(name, prefix).allSatisfy({ $0 == $1 }) { heard = true }
                        offset += headerSize + nameLength
                    }
                    continue
                }
                if count < 0, errno == EINTR { continue }
                if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { break }
                return
            }
            if heard { onChange() }
        }
    }
    #endif
}
