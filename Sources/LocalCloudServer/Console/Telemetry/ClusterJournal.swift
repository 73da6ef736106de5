import Foundation
import Logging
import Synchronization

/// Publishes this node's journal to the cluster's ``SharedRequestLog`` and reads the cluster's
/// back for the console. A change schedules one publish a quarter second later, so a burst of
/// requests is one batch and a line reaches every node's console well within the live log's 2 s.
///
/// Invariant: at most one publish is in flight or scheduled; `published` only grows.
final class ClusterJournal: Sendable {
    let journal: RequestJournal
    let shared: any SharedRequestLog
    private let logger: Logger
    static let delay = Duration.milliseconds(250)
    /// Latency samples kept per node and minute in the shared log (an even spread of the journal's).
    static let sharedSamples = 1000

    private struct State {
        var node = ProcessInfo.processInfo.hostName
        var scheduled = false
        var published = 0
        var lastPrune = Date.distantPast
    }

    private let state = Mutex(State())

    init(journal: RequestJournal, shared: any SharedRequestLog, logger: Logger) {
        self.journal = journal
        self.shared = shared
        self.logger = logger
        journal.onChange { [weak self] in self?.schedule() }
    }

    /// This node's name in the log: the host and the port it listens on.
    var node: String { state.withLock { $0.node } }

    func setNode(_ name: String) {
        state.withLock { $0.node = name }
    }

    private func schedule() {
        let start = state.withLock { state in
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        guard start else { return }
        Task {
            try? await Task.sleep(for: Self.delay)
            await self.publish()
        }
    }

    /// Sends what is new since the last publish. A failure keeps it for the next one.
    func publish() async {
        let (node, after, lastPrune) = state.withLock { state in
            state.scheduled = false
            return (state.node, state.published, state.lastPrune)
        }
        let lines = journal.lines(after: after, limit: RequestJournal.capacity)
        let current = journal.currentMinute
        // The previous minute too: its last requests may have come after its last publish.
        let minutes = journal.minutes(from: current - 1).map { minute in
            var minute = minute
            minute.latencies = Self.spread(minute.latencies, count: Self.sharedSamples)
            return minute
        }
        let now = journal.clock.now
        do {
            try await shared.publish(node: node, lines: lines, minutes: minutes, openStreams: journal.openStreams, now: now)
            if now.timeIntervalSince(lastPrune) > 60 {
                try await shared.prune(now: now)
                state.withLock { $0.lastPrune = now }
            }
            if let last = lines.last?.sequence { state.withLock { $0.published = max($0.published, last) } }
        } catch {
            logger.warning("console: could not publish the request log: \(error)")
        }
    }

    /// At most `count` of `samples`, evenly spread (all of them when there are fewer).
    static func spread(_ samples: [Double], count: Int) -> [Double] {
        guard samples.count > count, count > 0 else { return samples }
        return (0..<count).map { samples[$0 * samples.count / count] }
    }

    /// The cluster's last hour, one merged entry per minute, and its open push streams now.
    func lastHour() async throws -> (minutes: [RequestJournal.Minute], openStreams: Int) {
        let current = journal.currentMinute
        let nodes = try await shared.minutes(from: current - RequestJournal.minutes + 1)
        let hours = nodes.map { RequestJournal.hour(ending: current, buckets: $0.minutes, openStreams: $0.openStreams) }
        let merged = RequestJournal.Minute.merged(hours)
        return (merged.isEmpty ? RequestJournal.hour(ending: current, buckets: [], openStreams: 0) : merged,
                nodes.reduce(0) { $0 + $1.openStreams })
    }
}
