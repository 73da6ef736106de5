import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Calls back when a file whose name starts with a given prefix is written in a watched directory,
/// by any process: how a server hears `localcloud users signout` run beside it on the same files.
///
/// ```swift
/// let watch = DirectoryWatch(namePrefix: "identity.sqlite") { changes.fire() }
/// watch?.add(directory: dataDirectory.appendingPathComponent("iCloud.A"))
/// ```
///
/// Linux inotify: one descriptor, read by one thread of its own that blocks in `read(2)` until the
/// kernel reports a write (a wake-up, not a poll). The thread lives as long as the process: the
/// object is meant to live as long as the store that owns it.
final class DirectoryWatch: Sendable {
    private let descriptor: Int32
    private let namePrefix: String
    private let watched = Mutex<Set<String>>([])

    /// `nil` where inotify is unavailable (then only this process's own changes are heard).
    init?(namePrefix: String, onChange: @escaping @Sendable () -> Void) {
        #if os(Linux)
        let descriptor = inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
        self.namePrefix = namePrefix
        let prefix = Array(namePrefix.utf8)
        // A raw thread: the read blocks for as long as nothing changes, and must hold no pool thread.
        let thread = Thread {
            Self.readEvents(descriptor, prefix: prefix, onChange: onChange)
        }
        thread.name = "LocalCloud.blocking.directory-watch"
        thread.start()
        #else
        return nil
        #endif
    }

    /// Watches `directory` too (once; a missing directory is skipped and may be added later).
    func add(directory: URL) {
        #if os(Linux)
        let path = directory.standardizedFileURL.path
        let isNew = watched.withLock { $0.insert(path).inserted }
        guard isNew else { return }
        let mask = UInt32(IN_MODIFY) | UInt32(IN_CREATE) | UInt32(IN_MOVED_TO) | UInt32(IN_CLOSE_WRITE)
        if inotify_add_watch(descriptor, path, mask) < 0 {
            _ = watched.withLock { $0.remove(path) }
        }
        #endif
    }

    #if os(Linux)
    /// The reading thread: each batch of events whose names match rings `onChange` once.
    private static func readEvents(_ descriptor: Int32, prefix: [UInt8], onChange: @Sendable () -> Void) {
        let capacity = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        defer { buffer.deallocate() }
        let headerSize = MemoryLayout<inotify_event>.size
        while true {
            let count = read(descriptor, buffer, capacity)
            if count < 0 {
                if errno == EINTR { continue }
                return
            }
            if count == 0 { return }
            var offset = 0
            var matched = false
            while offset + headerSize <= count {
                let nameLength = Int(buffer.load(fromByteOffset: offset + 12, as: UInt32.self))
                let name = UnsafeRawBufferPointer(start: buffer + offset + headerSize, count: min(nameLength, count - offset - headerSize))
                if name.count >= prefix.count, zip(name, prefix).allSatisfy({ $0 == $1 }) { matched = true }
                offset += headerSize + nameLength
            }
            if matched { onChange() }
        }
    }
    #endif
}
