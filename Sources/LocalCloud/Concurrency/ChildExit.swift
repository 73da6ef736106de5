import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How a child process ended: its exit status, or the signal that ended it.
package struct ChildExit: Sendable, Equatable {
    package var status: Int32
    package var signal: Int32?

    package var succeeded: Bool { status == 0 && signal == nil }
}

extension BlockingThread {
    /// Waits for `process` to end, on a thread of its own.
    ///
    /// `waitpid` directly: Foundation's `Process.waitUntilExit()` on Linux sometimes never returns
    /// when several children start and end at once (the child stays a zombie, never reaped).
    package static func waitForExit(_ process: Process) async -> ChildExit {
        await run("wait") { waitForExitNow(process) }
    }

    /// ``waitForExit(_:)`` on the calling thread, for code already on a blocking thread.
    package static func waitForExitNow(_ process: Process) -> ChildExit {
        let pid = process.processIdentifier
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, 0)
            if result == pid {
                let signal = status & 0x7f
                return signal == 0 ? ChildExit(status: (status >> 8) & 0xff, signal: nil) : ChildExit(status: 128 + signal, signal: signal)
            }
            if result == -1 && errno == EINTR { continue }
            // Foundation's own monitor reaped it first: its record of the exit is complete.
            process.waitUntilExit()
            return process.terminationReason == .uncaughtSignal
                ? ChildExit(status: 128 + process.terminationStatus, signal: process.terminationStatus)
                : ChildExit(status: process.terminationStatus, signal: nil)
        }
    }
}
