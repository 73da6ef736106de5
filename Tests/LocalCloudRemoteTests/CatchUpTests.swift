import Foundation
import LocalCloud
import LocalCloudServerTesting
import Testing

/// The catch-up: what changed on the server while a client was away (deletions included, on any
/// page, not only the first) reaches its cache through the server's change tokens, at relaunch
/// and on reconnecting in the same process.
@Suite("Remote catch-up")
struct CatchUpTests {
    static let count = 300

    static func discoverQuery() -> Query {
        let query = Query(recordType: "Restaurant", predicate: Predicate(value: true))
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
        return query
    }

    /// `r-000` … `r-299`, saved by bob in batches (the newest, r-299, is the first row).
    static func fill(_ server: RemoteTestServer) async throws {
        let directory = OutboxTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bob = Container(configuration: try await server.configuration(user: "bob", dataDirectory: directory))
        for start in stride(from: 0, to: count, by: 100) {
            let batch = (start..<start + 100).map { index in
                let record = Record(recordType: "Restaurant", recordID: Record.ID(recordName: String(format: "r-%03d", index)))
                record["name"] = "Restaurant \(index)"
                return record
            }
            _ = try await bob.publicCloudDatabase.modifyRecords(saving: batch, deleting: [])
        }
    }

    /// Every page of the Discover query (50 rows a page): record name → name field, in order.
    static func allRows(_ container: Container) async throws -> [(id: String, name: String)] {
        let database = container.publicCloudDatabase
        var (matches, cursor) = try await database.records(matching: discoverQuery(), desiredKeys: ["name"], resultsLimit: 50)
        var rows = try matches.map { ($0.0.recordName, try $0.1.get()["name"] as? String ?? "") }
        while let next = cursor {
            (matches, cursor) = try await database.records(continuingMatchFrom: next, desiredKeys: ["name"], resultsLimit: 50)
            rows += try matches.map { ($0.0.recordName, try $0.1.get()["name"] as? String ?? "") }
        }
        return rows
    }

    /// While alice is away, bob's machine changes the server's store directly: two rows deleted
    /// and one renamed, all beyond the first page.
    static func changeWhileAway(_ server: RemoteTestServer) async throws {
        let direct = Container(configuration: .init(containerIdentifier: server.container, dataDirectory: server.dataDirectory, user: "bob"))
        let renamed = try await direct.publicCloudDatabase.record(for: Record.ID(recordName: "r-150"))
        renamed["name"] = "Renamed while away"
        _ = try await direct.publicCloudDatabase.modifyRecords(
            saving: [renamed], deleting: [Record.ID(recordName: "r-200"), Record.ID(recordName: "r-005")])
    }

    static func expectCaughtUp(_ rows: [(id: String, name: String)]) {
        #expect(rows.count == count - 2, "the two deleted rows are gone from the cached pages")
        #expect(!rows.contains { $0.id == "r-200" || $0.id == "r-005" })
        #expect(rows.first { $0.id == "r-150" }?.name == "Renamed while away", "the renamed row on page 3 is new in the cache")
        #expect(rows.first { $0.id == "r-151" }?.name == "Restaurant 151", "its neighbours are as they were")
    }

    /// Polls (with a deadline) until the container's cache has moved past `token`.
    static func cacheMoved(_ container: Container, from token: String?) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if container.cacheChangeToken != token { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// A server with the 300 restaurants, and alice's configuration on a fresh client directory
    /// (removed with the server's data by `cleanUp`).
    static func filledServer() async throws -> (server: RemoteTestServer, configuration: Container.Configuration, cleanUp: () -> Void) {
        let server = try await RemoteTestServer.start()
        let client = OutboxTests.temporaryDirectory()
        let cleanUp = {
            server.removeData()
            try? FileManager.default.removeItem(at: client)
        }
        do {
            try await fill(server)
            return (server, try await server.configuration(user: "alice", dataDirectory: client), cleanUp)
        } catch {
            cleanUp()
            throw error
        }
    }

    @Test func changesOnLaterPagesMadeWhileNoProcessRanReachTheCacheAtRelaunch() async throws {
        let (server, configuration, cleanUp) = try await Self.filledServer()
        defer { cleanUp() }
        do {
            let alice = Container(configuration: configuration)
            #expect(try await Self.allRows(alice).count == Self.count, "six pages read, and cached")
        }
        await server.stop()
        // The cache answers every page while the server is away.
        #expect(try await Self.allRows(Container(configuration: configuration)).count == Self.count)
        // Read with the server down: a later token can only come from a catch-up after the restart.
        let token = Container(configuration: configuration).cacheChangeToken
        #expect(token != nil, "the first read gave the cache a change token")
        try await Self.changeWhileAway(server)

        let restarted = try await RemoteTestServer.start(restarting: server)
        let relaunched = Container(configuration: configuration)   // a new process: catches up on its own
        #expect(await Self.cacheMoved(relaunched, from: token), "the catch-up applied the changes and moved the token")
        await restarted.stop()
        Self.expectCaughtUp(try await Self.allRows(Container(configuration: configuration)))
    }

    @Test func reconnectingInTheSameProcessCatchesUp() async throws {
        let (server, configuration, cleanUp) = try await Self.filledServer()
        defer { cleanUp() }
        let alice = Container(configuration: configuration)
        #expect(try await Self.allRows(alice).count == Self.count)
        await server.stop()
        #expect(try await Self.allRows(alice).count == Self.count, "offline: from the cache")
        #expect(alice.serverIsReachable == false)
        let token = alice.cacheChangeToken
        try await Self.changeWhileAway(server)

        let restarted = try await RemoteTestServer.start(restarting: server)
        // Any answer from the server after the failure starts the catch-up.
        _ = try await alice.publicCloudDatabase.records(matching: Self.discoverQuery(), desiredKeys: ["name"], resultsLimit: 1)
        #expect(await Self.cacheMoved(alice, from: token))
        await restarted.stop()
        Self.expectCaughtUp(try await Self.allRows(alice))
    }

    @Test func aLogCompactedPastTheCachesTokenEmptiesTheCacheRatherThanLeaveItStale() async throws {
        let (server, configuration, cleanUp) = try await Self.filledServer()
        defer { cleanUp() }
        #expect(try await Self.allRows(Container(configuration: configuration)).count == Self.count)
        await server.stop()
        try await Self.changeWhileAway(server)
        // The server's administrator compacts the log past every token handed out.
        let direct = Container(configuration: .init(containerIdentifier: server.container, dataDirectory: server.dataDirectory, user: nil))
        _ = try await direct.compactChangeLog(olderThan: Date().addingTimeInterval(3600))

        let restarted = try await RemoteTestServer.start(restarting: server)
        let relaunched = Container(configuration: configuration)   // catches up at open: changeTokenExpired
        let deadline = ContinuousClock.now + .seconds(30)
        while relaunched.cacheChangeToken != nil && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(relaunched.cacheChangeToken == nil, "the expired token is dropped")
        await restarted.stop()
        let error = await #expect(throws: CloudError.self, "no stale page with the deleted rows is served") {
            _ = try await Self.allRows(Container(configuration: configuration))
        }
        #expect(error?.code == .networkUnavailable)
    }
}

