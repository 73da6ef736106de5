import Foundation
import LocalCloud
import LocalCloudServerTesting
import Testing

/// The server's clock against this machine's: read from each answer's `Date` header, and used
/// where a wrong local clock would misplace data (changes queued offline).
@Suite("Server clock")
struct ServerClockTests {
    @Test func httpDatesParseAndAnythingElseDoesNot() {
        #expect(ServerClock.parseHTTPDate("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(ServerClock.parseHTTPDate("Tue, 24 Nov 2026 04:08:14 GMT") == Date(timeIntervalSince1970: 1_795_493_294))
        #expect(ServerClock.parseHTTPDate("") == nil)
        #expect(ServerClock.parseHTTPDate("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
        #expect(ServerClock.parseHTTPDate("Sun, 06 Foo 1994 08:49:37 GMT") == nil)
        #expect(ServerClock.parseHTTPDate("Sun, 06 Nov 1994 08:49:37 PST") == nil)
    }

    @Test func aRemoteContainerMeasuresTheServersClockOnItsFirstAnswer() async throws {
        let server = try await RemoteTestServer.start()
        defer { server.removeData() }
        let client = OutboxTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: client) }
        let alice = Container(configuration: try await server.configuration(user: "alice", dataDirectory: client))
        #expect(alice.serverClockOffset == nil, "not before an answer")
        _ = try await alice.publicCloudDatabase.records(matching: Query(recordType: "Restaurant", predicate: Predicate(value: true)))
        let offset = try #require(alice.serverClockOffset)
        #expect(abs(offset) < 5, "the same machine's clock: \(offset) s")
        let local = Container(configuration: .init(dataDirectory: client.appendingPathComponent("local"), user: "alice"))
        #expect(local.serverClockOffset == nil)
        await server.stop()
    }
}
