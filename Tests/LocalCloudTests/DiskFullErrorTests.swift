import Foundation
import GRDB
import Testing
@testable import LocalCloud

/// A full disk is one clear error, whichever layer meets it (Tests/EndToEnd/disk_full.sh fills a real tmpfs).
@Suite struct DiskFullErrorTests {
    @Test func outOfSpaceIsRecognisedInEveryForm() {
        #expect(CloudError.isOutOfSpace(DatabaseError(resultCode: .SQLITE_FULL)))
        #expect(CloudError.isOutOfSpace(CocoaError(.fileWriteOutOfSpace)))
        #expect(CloudError.isOutOfSpace(POSIXError(.ENOSPC)))
        #expect(CloudError.isOutOfSpace(NSError(domain: NSPOSIXErrorDomain, code: Int(ENOSPC))))
        let wrapped = NSError(domain: NSCocoaErrorDomain, code: 512,
                              userInfo: [NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(ENOSPC))])
        #expect(CloudError.isOutOfSpace(wrapped))
        #expect(!CloudError.isOutOfSpace(DatabaseError(resultCode: .SQLITE_CORRUPT)))
        #expect(!CloudError.isOutOfSpace(POSIXError(.EACCES)))
        #expect(!CloudError.isOutOfSpace(CloudError(.internalError, "x")))
    }

    @Test func sqliteFullIsQuotaExceededSayingTheDiskIsFull() {
        let error = SQLiteStore.cloudError(DatabaseError(resultCode: .SQLITE_FULL))
        #expect(error.code == .quotaExceeded)
        #expect(error.message.hasPrefix("The disk is full: "))
        let other = SQLiteStore.cloudError(DatabaseError(resultCode: .SQLITE_CORRUPT))
        #expect(other.code == .internalError)
    }
}
