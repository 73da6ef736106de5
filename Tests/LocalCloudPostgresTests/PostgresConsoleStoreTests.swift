import Foundation
import LocalCloud
import LocalCloudPostgres
import LocalCloudServerPostgres
@testable import LocalCloudServer
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

    /// The cluster's request log: two nodes publish, either reads both, filtered; minutes are per node
    /// and replaced on each publish; what is older than an hour is pruned.
    @Test func requestLogAcrossNodes() async throws {
        let url = try await PostgresCluster.shared().makeDatabase()
        let node1 = PostgresConsoleStore(url: url)
        let node2 = PostgresConsoleStore(url: url)
        try await node1.prepare()
        try await node2.prepare()
        let now = Date()
        func line(_ path: String, _ status: Int, user: String? = nil, age: TimeInterval = 0) -> RequestJournal.Line {
            RequestJournal.Line(sequence: 0, time: now.addingTimeInterval(-age), method: "POST", path: path, status: status,
                                milliseconds: 2.5, user: user, errorCode: status >= 400 ? "NOT_FOUND" : nil)
        }
        let minute = Int(now.timeIntervalSince1970 / 60)
        try await node1.publish(node: "a:1", lines: [line("/old", 200, age: 7200), line("/x/records/query", 200, user: "alice")],
                                minutes: [RequestJournal.Minute(start: minute, requests: 2, latencies: [1, 2])], openStreams: 1, now: now)
        try await node2.publish(node: "b:2", lines: [line("/y/records/lookup", 404)],
                                minutes: [RequestJournal.Minute(start: minute, requests: 1, errors: ["NOT_FOUND": 1], latencies: [9])],
                                openStreams: 2, now: now)
        let all = try await node2.lines(after: 0, limit: 10, filter: LogFilter(ConsoleForm()))
        #expect(all.lines.map(\.path) == ["/old", "/x/records/query", "/y/records/lookup"])
        #expect(all.lines.map(\.node) == ["a:1", "a:1", "b:2"])
        #expect(all.last == all.lines.last?.sequence)
        #expect(try await node1.lines(after: 0, limit: 10, filter: LogFilter(ConsoleForm(["status": "4xx"]))).lines.map(\.node) == ["b:2"])
        #expect(try await node1.lines(after: 0, limit: 10, filter: LogFilter(ConsoleForm(["status": "abc"]))).lines.isEmpty)
        #expect(try await node1.lines(after: 0, limit: 10, filter: LogFilter(ConsoleForm(["path": "records/", "user": "alice"])))
            .lines.map(\.path) == ["/x/records/query"])
        let newest = try await node1.lines(after: all.last, limit: 10, filter: LogFilter(ConsoleForm()))
        #expect(newest.lines.isEmpty && newest.last == all.last)

        // A node's minute is replaced, not added to, by its next publish.
        try await node1.publish(node: "a:1", lines: [], minutes: [RequestJournal.Minute(start: minute, requests: 3, latencies: [1, 2, 3])],
                                openStreams: 0, now: now)
        let nodes = try await node2.minutes(from: minute - 59)
        #expect(nodes.map(\.node) == ["a:1", "b:2"])
        #expect(nodes.map { $0.minutes.map(\.requests) } == [[3], [1]])
        #expect(nodes.map(\.openStreams) == [0, 2])
        #expect(nodes[1].minutes.first?.errors == ["NOT_FOUND": 1])
        #expect(nodes[0].minutes.first?.latencies == [1, 2, 3])

        try await node2.prune(now: now)
        #expect(try await node1.lines(after: 0, limit: 10, filter: LogFilter(ConsoleForm())).lines.map(\.path)
            == ["/x/records/query", "/y/records/lookup"])
    }
}
