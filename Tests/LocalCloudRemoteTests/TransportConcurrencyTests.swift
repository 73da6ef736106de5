import Foundation
import LocalCloud
import LocalCloudServerTesting
import Synchronization
import Testing

/// Many requests at once over kept-alive connections that the server keeps dropping: what a
/// screen sees when its network goes away while a refresh, an event stream and an upload are in
/// flight. libcurl must never hand one connection to two threads.
@Suite("HTTP transport under concurrent drops")
struct TransportConcurrencyTests {
    @Test func concurrentRequestsOverDroppedConnectionsEachEndCleanly() async throws {
        let served = Mutex(0)
        // Each connection answers one to three requests, then closes: sometimes after a whole
        // response, sometimes in the middle of one.
        let server = try RawSocketServer { connection in
            let answers = Int.random(in: 1...3)
            for number in 1...answers {
                guard connection.readRequest() != nil else { return }
                served.withLock { $0 += 1 }
                if number == answers && Bool.random() {
                    connection.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"rec")
                    return
                }
                connection.respond(status: "200 OK", contentType: "application/json", body: #"{"records":[]}"#)
            }
        }
        defer { server.stop() }
        let transport = HTTPTransport(timeouts: .init(connect: .seconds(5), idle: .seconds(5)))
        let request = HTTPTransport.Request(method: "POST", url: "\(server.url)/database/1/iCloud.T/development/public/records/query",
                                            headers: [("Content-Type", "application/json")], body: Array(#"{"query":{}}"#.utf8))
        let outcomes = await withTaskGroup(of: (ok: Int, failed: Int, other: [String]).self) { group in
            for _ in 0..<12 {
                group.addTask {
                    var ok = 0, failed = 0
                    var other: [String] = []
                    for _ in 0..<60 {
                        do {
                            let response = try await transport.send(request)
                            if response.status == 200 && response.body == Array(#"{"records":[]}"#.utf8) { ok += 1 } else {
                                other.append("HTTP \(response.status): \(String(decoding: response.body, as: UTF8.self))")
                            }
                        } catch let error as CloudError where error.code == .networkFailure || error.code == .networkUnavailable {
                            failed += 1
                        } catch {
                            other.append("\(error)")
                        }
                    }
                    return (ok, failed, other)
                }
            }
            var total = (ok: 0, failed: 0, other: [String]())
            for await outcome in group {
                total.ok += outcome.ok
                total.failed += outcome.failed
                total.other += outcome.other
            }
            return total
        }
        #expect(outcomes.other.isEmpty, "\(outcomes.other.prefix(5))")
        #expect(outcomes.ok + outcomes.failed == 720)
        #expect(outcomes.ok > 0 && outcomes.failed > 0, "both whole answers and broken ones: \(outcomes.ok) / \(outcomes.failed)")
        #expect(served.withLock { $0 } >= outcomes.ok)
    }
}
