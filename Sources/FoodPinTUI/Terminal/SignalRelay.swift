#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The pipe that signal handlers write to, and the signals seen since the last check.
/// Globals because a C signal handler cannot capture context; both are lock-free atomics,
/// which are safe to touch from a handler.
private let relayFD = Atomic<Int32>(-1)
private let pendingSignals = Atomic<UInt32>(0)

/// Turns SIGINT, SIGTERM, SIGHUP and SIGWINCH into a byte on the UI loop's wake pipe.
///
/// The handler only records the signal and writes one byte; the UI thread does the
/// real work (restoring the terminal, resizing), outside signal context. Installed
/// before ncurses starts, so ncurses keeps its own handlers out of the way.
struct SignalRelay {
    static let relayed: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGWINCH]
    private var previous: [Int32: sigaction] = [:]

    init(wakeFD: Int32) {
        _ = pendingSignals.exchange(0, ordering: .relaxed)
        relayFD.store(wakeFD, ordering: .sequentiallyConsistent)
        for signalNumber in Self.relayed {
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = { signalNumber in
                pendingSignals.bitwiseOr(1 << UInt32(signalNumber), ordering: .sequentiallyConsistent)
                var byte: UInt8 = 1
                _ = write(relayFD.load(ordering: .sequentiallyConsistent), &byte, 1)
            }
            #else
            action.__sigaction_u.__sa_handler = { signalNumber in
                pendingSignals.bitwiseOr(1 << UInt32(signalNumber), ordering: .sequentiallyConsistent)
                var byte: UInt8 = 1
                _ = write(relayFD.load(ordering: .sequentiallyConsistent), &byte, 1)
            }
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            var old = sigaction()
            if sigaction(signalNumber, &action, &old) == 0 { previous[signalNumber] = old }
        }
    }

    /// The signals received since the last call.
    func take() -> Set<Int32> {
        let bits = pendingSignals.exchange(0, ordering: .sequentiallyConsistent)
        return Set(Self.relayed.filter { bits & (1 << UInt32($0)) != 0 })
    }

    /// Puts the previous handlers back and stops writing to the pipe.
    func restore() {
        for (signalNumber, old) in previous {
            var action = old
            _ = sigaction(signalNumber, &action, nil)
        }
        relayFD.store(-1, ordering: .sequentiallyConsistent)
    }
}
