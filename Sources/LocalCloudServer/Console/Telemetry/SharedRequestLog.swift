import Foundation

/// Where nodes sharing a database keep the request log and the telemetry's minutes, so the
/// console on any node shows the whole cluster (`LocalCloudPostgres` keeps them in PostgreSQL).
/// Only the last hour is kept. Lines hold paths without query strings, as the journal's do.
package protocol SharedRequestLog: Sendable {
    /// Adds `node`'s new lines, replaces its summaries of `minutes`, and records its open push streams.
    func publish(node: String, lines: [RequestJournal.Line], minutes: [RequestJournal.Minute], openStreams: Int,
                 now: Date) async throws
    /// Drops lines and minutes older than an hour before `now`.
    func prune(now: Date) async throws
    /// Lines with a sequence above `after` that pass `filter`, the newest `limit` of them, oldest
    /// first; and the newest sequence of all (the live log asks for what follows it).
    func lines(after: Int, limit: Int, filter: LogFilter) async throws -> (lines: [RequestJournal.Line], last: Int)
    /// Each node's minutes from `start` on (minutes since 1970), and its open push streams as last published.
    func minutes(from start: Int) async throws -> [(node: String, minutes: [RequestJournal.Minute], openStreams: Int)]
}
