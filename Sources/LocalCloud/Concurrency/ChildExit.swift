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

/// A child process's exit and everything it wrote.
package struct ChildOutput: Sendable {
    package var exit: ChildExit
    package var stdout: Data
    package var stderr: Data
}

extension BlockingThread {
    /// Runs `process` to its end on the calling thread (a blocking one), with `stdin` as its input,
    /// and returns what it wrote.
    ///
    /// Its output goes to files, not pipes: a pipe's write end inherited by a child that another
    /// thread starts at the same moment would keep EOF from ever coming.
    package static func runCapturingNow(_ process: Process, stdin: Data? = nil) throws -> ChildOutput {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        let outURL = scratch.appendingPathExtension("out"), errURL = scratch.appendingPathExtension("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        try out.close()
        try err.close()
        if let stdin {
            input.fileHandleForWriting.write(stdin)
            try input.fileHandleForWriting.close()
        }
        let exit = waitForExitNow(process)
        return ChildOutput(exit: exit, stdout: try Data(contentsOf: outURL), stderr: try Data(contentsOf: errURL))
    }
}
