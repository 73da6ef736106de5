import Foundation
import GRDB
import Testing
@testable import LocalCloudServer
#if canImport(Glibc)
import Glibc
#endif

/// The identity cache's stamp changes with every published commit, even one that leaves the
/// files' sizes and modification times as they were (a WAL restarted from its start, writes in one
/// clock tick). Sizes and times alone let a push check that read mid-commit keep a revoked
/// session's token "live": a CI run's sign-out was not seen.
@Suite struct IdentityLookupCacheStampTests {
    @Test func aCommitThatLeavesSizesAndTimesAsTheyWereStillChangesTheStamp() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stamp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("identity.sqlite")
        let pool = try DatabasePool(path: url.path)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE token (digest TEXT PRIMARY KEY, revoked REAL)")
            try db.execute(sql: "INSERT INTO token VALUES ('alice', NULL)")
        }
        // The WAL's next writer starts again from its first frame: the same update then ends at the same size.
        try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.restart) }
        try pool.write { db in try db.execute(sql: "UPDATE token SET revoked = NULL WHERE digest = 'alice'") }
        try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.restart) }
        let before = try #require(IdentityLookupCache<Int>.stamp(url))
        let times = try [url.path, url.path + "-wal"].map { path -> timespec in
            var info = stat()
            guard stat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
            return info.st_mtim
        }

        try pool.write { db in try db.execute(sql: "UPDATE token SET revoked = 1 WHERE digest = 'alice'") }
        // The same clock tick, as far as the files can tell.
        for (path, time) in zip([url.path, url.path + "-wal"], times) {
            var both = [time, time]
            #expect(utimensat(AT_FDCWD, path, &both, 0) == 0)
        }
        let after = try #require(IdentityLookupCache<Int>.stamp(url))
        let filePart = 6  // size, seconds and nanoseconds of the file and of its WAL
        #expect(Array(after.file.prefix(filePart)) == Array(before.file.prefix(filePart)),
                "the files look untouched: the header alone tells")
        #expect(after != before, "the commit changed the WAL-index header")
        try pool.close()
    }
}
