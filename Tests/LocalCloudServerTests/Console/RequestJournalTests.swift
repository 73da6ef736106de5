import Foundation
import LocalCloud
import Synchronization
import Testing
@testable import LocalCloudServer

@Suite("console: the request journal behind the live log and telemetry")
struct RequestJournalTests {
    @Test func linesArriveInOrderAndFilter() {
        let journal = RequestJournal()
        journal.record(method: "POST", path: "/a", status: 200, milliseconds: 1, user: "alice", errorCode: nil)
        journal.record(method: "POST", path: "/b", status: 404, milliseconds: 2, user: nil, errorCode: "NOT_FOUND")
        journal.record(method: "GET", path: "/c", status: 200, milliseconds: 3, user: "bob", errorCode: nil)
        #expect(journal.lines(after: 0).map(\.path) == ["/a", "/b", "/c"])
        #expect(journal.lines(after: 1).map(\.path) == ["/b", "/c"])
        #expect(journal.lines(after: 0, where: LogFilter(ConsoleForm(["status": "4xx"])).matches).map(\.path) == ["/b"])
        #expect(journal.lines(after: 0, where: LogFilter(ConsoleForm(["user": "bob"])).matches).map(\.path) == ["/c"])
        #expect(journal.lines(after: 0, where: LogFilter(ConsoleForm(["status": "200", "path": "/a"])).matches).map(\.path) == ["/a"])
        journal.checkInvariants()
    }

    @Test func keepsTheLastLinesOnly() {
        let journal = RequestJournal()
        for i in 0..<(RequestJournal.capacity + 50) {
            journal.record(method: "GET", path: "/\(i)", status: 200, milliseconds: 1, user: nil, errorCode: nil)
        }
        let lines = journal.lines(after: 0, limit: .max)
        #expect(lines.count == RequestJournal.capacity)
        #expect(lines.first?.path == "/50")
        // After the ring has wrapped: a suffix from any sequence, older than the oldest kept or past the newest.
        #expect(journal.lines(after: 2000, limit: .max).map(\.path) == (2000..<2050).map { "/\($0)" })
        #expect(journal.lines(after: 10, limit: .max).count == RequestJournal.capacity)
        #expect(journal.lines(after: 2050).isEmpty)
        #expect(journal.lines(after: 9999).isEmpty)
        #expect(journal.lines(after: 2040, limit: 3).map(\.path) == ["/2047", "/2048", "/2049"])
        journal.checkInvariants()
    }

    @Test func lastHourHasSixtyMinutesWithQuantilesAndErrors() {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let journal = RequestJournal(clock: clock.wallClock)
        for ms in 1...100 {
            journal.record(method: "GET", path: "/", status: ms > 95 ? 503 : 200, milliseconds: Double(ms), user: nil,
                           errorCode: ms > 95 ? "TRY_AGAIN_LATER" : nil)
        }
        journal.streams(1)
        journal.streams(1)
        journal.streams(-1)
        clock.advance(by: 120)
        journal.record(method: "GET", path: "/", status: 200, milliseconds: 5, user: nil, errorCode: nil)
        let hour = journal.lastHour()
        #expect(hour.count == 60)
        let busy = hour[hour.count - 3]
        #expect(busy.requests == 100)
        #expect(busy.latency(quantile: 0.5) == 50)
        #expect(busy.latency(quantile: 0.99) == 99)
        #expect(busy.errors == ["TRY_AGAIN_LATER": 5])
        #expect(busy.streams == 2)
        #expect(hour.last?.requests == 1)
        #expect(journal.openStreams == 1)
        clock.advance(by: 3600)
        #expect(journal.lastHour().allSatisfy { $0.requests == 0 })
        journal.checkInvariants()
    }

    @Test func nodesMergeIntoOneHour() {
        let a = RequestJournal.hour(ending: 100, buckets: [RequestJournal.Minute(start: 99, requests: 2, errors: ["X": 1], latencies: [1, 3], streams: 1)],
                                    openStreams: 1)
        let b = RequestJournal.hour(ending: 100, buckets: [RequestJournal.Minute(start: 99, requests: 1, errors: ["X": 2, "Y": 1], latencies: [2], streams: 2)],
                                    openStreams: 0)
        let merged = RequestJournal.Minute.merged([a, b])
        #expect(merged.count == 60 && merged.map(\.start) == Array(41...100))
        #expect(merged[58].requests == 3 && merged[58].errors == ["X": 3, "Y": 1] && merged[58].streams == 3)
        #expect(merged[58].latency(quantile: 0.5) == 2)
        // The stream counts are carried into the quiet last minute: node a still has one open, b none.
        #expect(merged[59].requests == 0 && merged[59].streams == 1)
        #expect(RequestJournal.Minute.merged([]).isEmpty)
    }

    @Test func sharedSamplesAreAnEvenSpread() {
        let samples = (1...10_000).map(Double.init)
        let spread = ClusterJournal.spread(samples, count: 1000)
        #expect(spread.count == 1000 && spread.first == 1 && spread.last == 9991)
        #expect(ClusterJournal.spread([1, 2], count: 1000) == [1, 2])
    }
}
