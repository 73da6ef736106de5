#if canImport(Glibc)
import Glibc
#endif

/// The process's open-file limit: each open push stream holds a socket (and, with the SQLite store,
/// a read-only connection), so a node with thousands of open screens needs thousands of descriptors.
///
/// ```swift
/// let limit = DescriptorLimit.raiseToHardLimit()   // e.g. (from: 1024, to: 1048576)
/// ```
///
/// Linux's default soft limit is often 1,024; the hard limit (`ulimit -Hn`, systemd's `LimitNOFILE=`)
/// is the most an unprivileged process may raise it to, and that is what `localcloud serve` does at start.
package enum DescriptorLimit {
    /// Raises the soft limit to the hard one.
    /// - Returns: the limit before and after; `nil` when the OS refused to say or to raise it.
    @discardableResult
    package static func raiseToHardLimit() -> (from: UInt64, to: UInt64)? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        let before = UInt64(limit.rlim_cur)
        guard limit.rlim_cur < limit.rlim_max else { return (before, before) }
        limit.rlim_cur = limit.rlim_max
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return (before, UInt64(limit.rlim_cur))
    }
}
