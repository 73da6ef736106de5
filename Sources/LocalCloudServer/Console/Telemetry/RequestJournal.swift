import Foundation
import LocalCloud
import NIOCore
import Synchronization

/// This node's recent requests, for the console's live log and its telemetry charts.
///
/// The log keeps the last ``capacity`` lines; telemetry keeps one bucket per minute for the last
/// hour (requests, errors by code, latency samples for p50/p99, the most push streams open).
/// Lines hold the path without its query string, so tokens never reach them.
///
/// Invariant: line sequence numbers increase by one from `first` to the newest; there are at most
/// ``capacity`` lines and ``minutes`` buckets, and each bucket's latency samples stay under ``samplesPerMinute``.
package final class RequestJournal: Sendable {
    package struct Line: Sendable, Equatable {
        package var sequence: Int
        package var time: Date
        package var method: String
        package var path: String
        package var status: Int
        package var milliseconds: Double
        package var user: String?
        package var errorCode: String?
        /// The node that served it (`host:port`), on a cluster's shared log.
        package var node: String?

        package init(sequence: Int, time: Date, method: String, path: String, status: Int, milliseconds: Double,
                     user: String?, errorCode: String?, node: String? = nil) {
            self.sequence = sequence
            self.time = time
            self.method = method
            self.path = path
            self.status = status
            self.milliseconds = milliseconds
            self.user = user
            self.errorCode = errorCode
            self.node = node
        }
    }

    package struct Minute: Sendable, Equatable {
        /// Minutes since 1970.
        package var start: Int
        package var requests = 0
        package var errors: [String: Int] = [:]
        package var latencies: [Double] = []
        /// The most push streams open at once in the minute.
        package var streams = 0

        package init(start: Int, requests: Int = 0, errors: [String: Int] = [:], latencies: [Double] = [], streams: Int = 0) {
            self.start = start
            self.requests = requests
            self.errors = errors
            self.latencies = latencies
            self.streams = streams
        }
    }

    static let capacity = 2000
    static let minutes = 60
    static let samplesPerMinute = 20_000

    private struct State {
        /// A ring: the oldest line leaves in O(1). (An array shifted its 2,000 lines on every
        /// request once full: 7% of a node's CPU serving a page from memory.)
        var lines = CircularBuffer<Line>(initialCapacity: RequestJournal.capacity + 1)
        var next = 1
        var buckets: [Minute] = []
        var openStreams = 0
    }

    private let state = Mutex(State())
    /// The server's clock: each line's time and the minute it counts in.
    let clock: WallClock
    /// Told of every new line and stream count (a cluster's publisher).
    private let listener = Mutex<Listener?>(nil)

    /// The closure in a struct: a `Mutex` holding a bare closure re-wraps it in reabstraction
    /// thunks on every access (the inout through the generic storage), so each request made the
    /// next one's call longer: on a PostgreSQL node, most of its CPU after a few minutes.
    private struct Listener {
        let action: @Sendable () -> Void
    }

    init(clock: WallClock = .system) {
        self.clock = clock
    }

    private func now() -> Date { clock.now }

    func onChange(_ action: @escaping @Sendable () -> Void) {
        listener.withLock { $0 = Listener(action: action) }
    }

    private func changed() {
        listener.withLock { $0 }?.action()
    }

    /// Records one finished request.
    func record(method: String, path: String, status: Int, milliseconds: Double, user: String?, errorCode: String?) {
        let time = now()
        state.withLock { state in
            state.lines.append(Line(sequence: state.next, time: time, method: method, path: path, status: status,
                                    milliseconds: milliseconds, user: user, errorCode: errorCode))
            state.next += 1
            while state.lines.count > Self.capacity { state.lines.removeFirst() }
            Self.bucket(&state, at: time) { minute in
                minute.requests += 1
                if status >= 400 { minute.errors[errorCode ?? "HTTP_\(status)", default: 0] += 1 }
                if minute.latencies.count < Self.samplesPerMinute { minute.latencies.append(milliseconds) }
            }
        }
        changed()
    }

    /// A push stream opened (+1) or closed (-1).
    func streams(_ delta: Int) {
        let time = now()
        state.withLock { state in
            state.openStreams = max(0, state.openStreams + delta)
            let open = state.openStreams
            Self.bucket(&state, at: time) { $0.streams = max($0.streams, open) }
        }
        changed()
    }

    /// The minutes with activity from `start` on (minutes since 1970), oldest first.
    func minutes(from start: Int) -> [Minute] {
        state.withLock { state in state.buckets.filter { $0.start >= start } }
    }

    /// The current minute (minutes since 1970) by this journal's clock.
    var currentMinute: Int { Int(now().timeIntervalSince1970 / 60) }

    var openStreams: Int { state.withLock { $0.openStreams } }

    /// The sequence of the newest line; 0 before the first.
    var newestSequence: Int { state.withLock { $0.next - 1 } }

    private static func bucket(_ state: inout State, at time: Date, _ change: (inout Minute) -> Void) {
        let start = Int(time.timeIntervalSince1970 / 60)
        if state.buckets.last?.start != start {
            state.buckets.append(Minute(start: start, streams: state.openStreams))
            state.buckets.removeAll { $0.start <= start - minutes }
        }
        change(&state.buckets[state.buckets.count - 1])
    }

    /// Lines after `sequence` (oldest first) that pass `filter`, at most `limit` of the newest.
    func lines(after sequence: Int, limit: Int = 500, where filter: (Line) -> Bool = { _ in true }) -> [Line] {
        let matching = state.withLock { state -> [Line] in
            // Sequences are consecutive, so the lines after `sequence` are a suffix.
            guard let first = state.lines.first?.sequence else { return [] }
            return state.lines.dropFirst(min(max(0, sequence - first + 1), state.lines.count)).filter(filter)
        }
        return Array(matching.suffix(limit))
    }

    /// The last hour, one entry per minute, oldest first, with empty minutes filled in.
    func lastHour() -> [Minute] {
        let current = Int(now().timeIntervalSince1970 / 60)
        let (buckets, open) = state.withLock { ($0.buckets, $0.openStreams) }
        return Self.hour(ending: current, buckets: buckets, openStreams: open)
    }

    /// Sixty minutes ending at `current` from one node's buckets: quiet minutes filled in, the
    /// stream count carried from the last minute that had one (`openStreams` when there is none).
    static func hour(ending current: Int, buckets: [Minute], openStreams open: Int) -> [Minute] {
        var byStart: [Int: Minute] = [:]
        for bucket in buckets { byStart[bucket.start] = bucket }
        var carried = buckets.first.map { _ in 0 } ?? open
        return ((current - Self.minutes + 1)...current).map { start in
            if let bucket = byStart[start] {
                carried = bucket.streams
                return bucket
            }
            return Minute(start: start, streams: start == current ? open : carried)
        }
    }

    /// The invariant, for tests.
    func checkInvariants() {
        state.withLock { state in
            precondition(state.lines.count <= Self.capacity)
            for (a, b) in zip(state.lines, state.lines.dropFirst()) { precondition(b.sequence == a.sequence + 1) }
            precondition(state.buckets.count <= Self.minutes)
            precondition(state.buckets.allSatisfy { $0.latencies.count <= Self.samplesPerMinute })
        }
    }
}

extension RequestJournal.Minute {
    /// The minutes of several nodes added up: requests, errors and stream counts summed, latency samples pooled.
    static func merged(_ nodes: [[Self]]) -> [Self] {
        guard var total = nodes.first else { return [] }
        for other in nodes.dropFirst() {
            for (index, minute) in other.enumerated() where index < total.count {
                total[index].requests += minute.requests
                for (code, count) in minute.errors { total[index].errors[code, default: 0] += count }
                total[index].latencies += minute.latencies
                total[index].streams += minute.streams
            }
        }
        return total
    }

    /// The `fraction` quantile of the minute's latencies (nearest rank); 0 for a quiet minute.
    func latency(quantile fraction: Double) -> Double {
        guard !latencies.isEmpty else { return 0 }
        let sorted = latencies.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}
