import Foundation
import GRDB

extension CloudError {
    /// The one error for a data directory that has no space left: `quotaExceeded` (CloudKit's
    /// code for running out of storage; QUOTA_EXCEEDED on the wire), saying so in words.
    ///
    /// ```swift
    /// catch where CloudError.isOutOfSpace(error) { throw CloudError.diskFull(writing: "the record store", cause: error) }
    /// ```
    static func diskFull(writing what: String, cause: (any Error & Sendable)?) -> CloudError {
        CloudError(.quotaExceeded, "The disk is full: could not write \(what). Free some space and try again; nothing saved before was lost",
                   cause: cause)
    }

    /// Whether `error` is a write that failed for want of space: SQLite's `SQLITE_FULL`, or
    /// `ENOSPC`/`EDQUOT` from the file system (as Foundation or POSIX reports it).
    package static func isOutOfSpace(_ error: any Error) -> Bool {
        if let error = error as? DatabaseError { return error.resultCode == .SQLITE_FULL }
        if let error = error as? CocoaError, error.code == .fileWriteOutOfSpace { return true }
        if let error = error as? POSIXError { return error.code == .ENOSPC || error.code == .EDQUOT }
        let nsError = error as NSError
        if nsError.domain == NSPOSIXErrorDomain, nsError.code == Int(ENOSPC) || nsError.code == Int(EDQUOT) { return true }
        if nsError.domain == NSCocoaErrorDomain, nsError.code == CocoaError.fileWriteOutOfSpace.rawValue { return true }
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? any Error { return isOutOfSpace(underlying) }
        return false
    }
}
