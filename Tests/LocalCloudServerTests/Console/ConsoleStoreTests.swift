import Foundation
import LocalCloud
import Testing
@testable import LocalCloudServer

@Suite("console: administrators, sessions and the audit log (SQLite)")
struct ConsoleStoreTests {
    private func store() throws -> (SQLiteConsoleStore, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("console-store-\(UUID().uuidString)")
        return (SQLiteConsoleStore(dataDirectory: directory), directory)
    }

    @Test func passwordsAreBcryptAndSessionsEnd() async throws {
        let (store, directory) = try store()
        defer { try? FileManager.default.removeItem(at: directory) }
        let hasher = PasswordHasher(cost: 4)
        try await store.addAdmin("root", password: "s3cret", hasher: hasher)
        await #expect(throws: CloudError.self) { try await store.addAdmin("root", password: "other", hasher: hasher) }
        await #expect(throws: CloudError.self) { try await store.addAdmin("../x", password: "other", hasher: hasher) }
        #expect(try await store.adminPasswordHash("root")?.hasPrefix("$2") == true)
        #expect(try await store.checkAdminPassword("root", password: "s3cret", hasher: hasher))
        #expect(try await !store.checkAdminPassword("root", password: "wrong", hasher: hasher))
        #expect(try await !store.checkAdminPassword("nobody", password: "s3cret", hasher: hasher))

        let now = Date()
        let token = try await store.startSession(admin: "root", lifetime: 60, now: now)
        #expect(try await store.liveSession(token: token, now: now)?.admin == "root")
        #expect(try await store.liveSession(token: token, now: now.addingTimeInterval(61)) == nil)
        #expect(try await store.liveSession(token: token + "x", now: now) == nil)
        // Only the digest is stored.
        let bytes = try Data(contentsOf: store.fileURL)
        #expect(bytes.range(of: Data(token.utf8)) == nil)
        try await store.endSession(token: token, now: now)
        #expect(try await store.liveSession(token: token, now: now) == nil)

        let second = try await store.startSession(admin: "root", lifetime: 60, now: now)
        #expect(try await store.deleteAdmin("root"))
        #expect(try await store.liveSession(token: second, now: now) == nil)
        #expect(try await !store.deleteAdmin("root"))
    }

    @Test func auditNewestFirst() async throws {
        let (store, directory) = try store()
        defer { try? FileManager.default.removeItem(at: directory) }
        for i in 1...3 {
            try await store.appendAudit(AuditEntry(time: Date(timeIntervalSince1970: Double(i)), admin: "root", action: "a\(i)", detail: "d"))
        }
        #expect(try await store.auditEntries(limit: 2).map(\.action) == ["a3", "a2"])
    }
}
