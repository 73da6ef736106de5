import Foundation
import LocalCloud
import LocalCloudPostgres
import LocalCloudServerPostgres
import LocalCloudServer
import PostgresTestSupport
import Testing

/// The web console's administrators, sessions and audit log in PostgreSQL, shared by every node:
/// a second store on the same database (another node) sees the first one's sign-in and sign-out.
@Suite(.enabled(if: !PostgresCluster.isSkipped, "LOCALCLOUD_SKIP_POSTGRES=1"))
struct PostgresConsoleStoreTests {
    @Test func adminsSessionsAndAuditAcrossNodes() async throws {
        let url = try await PostgresCluster.shared().makeDatabase()
        let node1 = PostgresConsoleStore(url: url)
        let node2 = PostgresConsoleStore(url: url)
        try await node1.prepare()
        try await node2.prepare()
        let hasher = PasswordHasher(cost: 4)
        try await node1.addAdmin("root", password: "s3cret", hasher: hasher)
        await #expect(throws: CloudError.self) { try await node2.addAdmin("root", password: "again", hasher: hasher) }
        #expect(try await node2.admins().map(\.name) == ["root"])
        #expect(try await node2.checkAdminPassword("root", password: "s3cret", hasher: hasher))
        #expect(try await !node2.checkAdminPassword("root", password: "wrong", hasher: hasher))

        let now = Date()
        let token = try await node1.startSession(admin: "root", lifetime: 60, now: now)
        #expect(try await node2.liveSession(token: token, now: now)?.admin == "root")
        #expect(try await node2.liveSession(token: token, now: now.addingTimeInterval(61)) == nil)
        try await node2.endSession(token: token, now: now)
        #expect(try await node1.liveSession(token: token, now: now) == nil)

        let second = try await node1.startSession(admin: "root", lifetime: 60, now: now)
        #expect(try await node2.deleteAdmin("root"))
        #expect(try await node1.liveSession(token: second, now: now) == nil)

        try await node1.appendAudit(AuditEntry(time: now, admin: "root", action: "schema.field", detail: "a"))
        try await node2.appendAudit(AuditEntry(time: now, admin: "root", action: "schema.index", detail: "b"))
        #expect(try await node1.auditEntries(limit: 10).map(\.action) == ["schema.index", "schema.field"])
    }
}
