import Foundation
import LocalCloud
import LocalCloudPostgres
import LocalCloudServer
import PostgresNIO

// The cluster's request log and telemetry in `localcloud_console` (`requests`, `minutes`, `nodes`):
// each node adds its lines and replaces its own minutes, so any node's console shows them all.
// Only the last hour is kept (`prune`).
extension PostgresConsoleStore: SharedRequestLog {
    /// Lines a statement inserts at most (8 binds each, far below PostgreSQL's 65,535).
    static let linesPerInsert = 500

    package func publish(node: String, lines: [RequestJournal.Line], minutes: [RequestJournal.Minute], openStreams: Int,
                         now: Date) async throws {
        var start = 0
        while start < lines.count {
            let chunk = lines[start..<min(start + Self.linesPerInsert, lines.count)]
            var s = PostgresStatement("INSERT INTO \(Self.schema).requests (node, time, method, path, status, ms, \"user\", code) VALUES ")
            var values: [String] = []
            for line in chunk {
                values.append("(" + [s.bind(node), s.bind(line.time.timeIntervalSince1970), s.bind(line.method), s.bind(line.path),
                                     s.bind(Int32(clamping: line.status)), s.bind(line.milliseconds), s.bind(line.user),
                                     s.bind(line.errorCode)].joined(separator: ", ") + ")")
            }
            s.sql += values.joined(separator: ", ")
            _ = try await rows(s)
            start += Self.linesPerInsert
        }
        for minute in minutes {
            let errors = String(decoding: try JSONEncoder().encode(minute.errors), as: UTF8.self)
            var s = PostgresStatement("INSERT INTO \(Self.schema).minutes (node, minute, requests, errors, latencies, streams) VALUES (")
            s.sql += [s.bind(node), s.bind(Int64(minute.start)), s.bind(Int32(clamping: minute.requests)), s.bind(errors),
                      s.bind(minute.latencies), s.bind(Int32(clamping: minute.streams))].joined(separator: ", ")
            s.sql += """
                ) ON CONFLICT (node, minute) DO UPDATE SET requests = EXCLUDED.requests, errors = EXCLUDED.errors,
                latencies = EXCLUDED.latencies, streams = EXCLUDED.streams
                """
            _ = try await rows(s)
        }
        var s = PostgresStatement("INSERT INTO \(Self.schema).nodes (node, open_streams, updated) VALUES (")
        s.sql += [s.bind(node), s.bind(Int32(clamping: openStreams)), s.bind(now.timeIntervalSince1970)].joined(separator: ", ")
        s.sql += ") ON CONFLICT (node) DO UPDATE SET open_streams = EXCLUDED.open_streams, updated = EXCLUDED.updated"
        _ = try await rows(s)
    }

    package func prune(now: Date) async throws {
        let hourAgo = now.timeIntervalSince1970 - 3600
        var s = PostgresStatement("DELETE FROM \(Self.schema).requests WHERE time < ")
        s.sql += s.bind(hourAgo)
        _ = try await rows(s)
        var m = PostgresStatement("DELETE FROM \(Self.schema).minutes WHERE minute < ")
        m.sql += m.bind(Int64(hourAgo / 60) - 1)
        _ = try await rows(m)
        var n = PostgresStatement("DELETE FROM \(Self.schema).nodes WHERE updated < ")
        n.sql += n.bind(hourAgo)
        _ = try await rows(n)
    }

    package func lines(after: Int, limit: Int, filter: LogFilter) async throws -> (lines: [RequestJournal.Line], last: Int) {
        var s = PostgresStatement("SELECT id, node, time, method, path, status, ms, \"user\", code FROM \(Self.schema).requests WHERE id > ")
        s.sql += s.bind(Int64(after))
        if let status = filter.status {
            if status.count == 3, status.hasSuffix("xx"), let digit = status.first?.wholeNumberValue {
                s.sql += " AND status BETWEEN \(s.bind(Int32(digit * 100))) AND \(s.bind(Int32(digit * 100 + 99)))"
            } else if let code = Int32(status) {
                s.sql += " AND status = \(s.bind(code))"
            } else {
                s.sql += " AND FALSE"
            }
        }
        if let path = filter.path { s.sql += " AND strpos(path, \(s.bind(path))) > 0" }
        if let user = filter.user { s.sql += " AND \"user\" = \(s.bind(user))" }
        s.sql += " ORDER BY id DESC LIMIT \(s.bind(Int64(max(0, limit))))"
        let lines = try await rows(s).map { row in
            let (id, node, time, method, path, status, ms, user, code) =
                try row.decode((Int64, String, Double, String, String, Int32, Double, String?, String?).self)
            return RequestJournal.Line(sequence: Int(id), time: Date(timeIntervalSince1970: time), method: method, path: path,
                                       status: Int(status), milliseconds: ms, user: user, errorCode: code, node: node)
        }
        let newest = try await rows(PostgresStatement("SELECT coalesce(max(id), 0) FROM \(Self.schema).requests")).first?
            .decode(Int64.self) ?? 0
        return (lines.reversed(), max(after, Int(newest)))
    }

    package func minutes(from start: Int) async throws -> [(node: String, minutes: [RequestJournal.Minute], openStreams: Int)] {
        var s = PostgresStatement("SELECT node, minute, requests, errors, latencies, streams FROM \(Self.schema).minutes WHERE minute >= ")
        s.sql += s.bind(Int64(start)) + " ORDER BY node, minute"
        var byNode: [String: [RequestJournal.Minute]] = [:]
        for row in try await rows(s) {
            let (node, minute, requests, errors, latencies, streams) = try row.decode((String, Int64, Int32, String, [Double], Int32).self)
            let codes = (try? JSONDecoder().decode([String: Int].self, from: Data(errors.utf8))) ?? [:]
            byNode[node, default: []].append(RequestJournal.Minute(start: Int(minute), requests: Int(requests), errors: codes,
                                                                   latencies: latencies, streams: Int(streams)))
        }
        var open: [String: Int] = [:]
        for row in try await rows(PostgresStatement("SELECT node, open_streams FROM \(Self.schema).nodes")) {
            let (node, streams) = try row.decode((String, Int32).self)
            open[node] = Int(streams)
        }
        return Set(byNode.keys).union(open.keys).sorted().map { node in (node, byNode[node] ?? [], open[node] ?? 0) }
    }
}
