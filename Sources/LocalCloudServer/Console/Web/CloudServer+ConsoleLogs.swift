import Foundation
import Hummingbird
import LocalCloud
import NIOCore

// Logs (the request log of this node, or of the cluster on a shared database, live, filtered by status, path and user) and Telemetry (SVG
// charts of the last hour). Lines hold paths without query strings: tokens never appear.
extension CloudServer {
    func addConsoleLogs(_ router: Router<ServerRequestContext>, _ console: WebConsole) {
        consoleRoute(router, .get, "logs") { request in
            let place = try request.place(console)
            let filter = LogFilter(request.query)
            let (lines, last) = try await console.logLines(after: 0, limit: 200, filter: filter)
            return .page(template: "logs", title: "Logs", section: "logs", context: [
                "place": place.hiddenFields,
                "status": filter.status ?? "", "path": filter.path ?? "", "user": filter.user ?? "",
                "lines": lines.reversed().map(Self.logLine),
                "last": last,
                "scope": console.cluster == nil ? "This node’s requests" : "Every node’s requests (the cluster shares its log)",
            ])
        }
        consoleRoute(router, .get, "logs.json") { request in
            let filter = LogFilter(request.query)
            let after = Int(request.query.text("after") ?? "") ?? 0
            let (lines, last) = try await console.logLines(after: after, limit: 200, filter: filter)
            let json = JSONValue.object([
                "last": .int(Int64(last)),
                "lines": .array(lines.map { line in
                    .object(Self.logLine(line).mapValues { JSONValue.string("\($0)") })
                }),
            ])
            return .response(Response(status: .ok, headers: [.contentType: Self.jsonContentType],
                                      body: .init(byteBuffer: ByteBuffer(bytes: json.bytes))))
        }
        consoleRoute(router, .get, "telemetry") { request in
            let place = try request.place(console)
            return .page(template: "telemetry", title: "Telemetry", section: "telemetry", context: [
                "charts": ["requests", "latency", "errors", "streams"].map { name in
                    ["name": name, "url": "/console/telemetry/\(name).svg"]
                },
                "openStreams": try await console.lastHour().openStreams,
                "scope": console.cluster == nil ? "This node" : "Every node of the cluster",
                "place": place.hiddenFields,
            ])
        }
        consoleRoute(router, .get, "telemetry/:chart") { request in
            let name = request.uri.split(separator: "/").last.map { String($0.prefix { $0 != "?" }) } ?? ""
            guard let chart = Self.telemetryChart(name, hour: try await console.lastHour().minutes) else {
                throw CloudError(.unknownItem, "No chart '\(name.prefix(40))'")
            }
            return .response(Response(status: .ok, headers: [.contentType: "image/svg+xml; charset=utf-8"],
                                      body: .init(byteBuffer: ByteBuffer(string: chart.svg))))
        }
    }

    static func logLine(_ line: RequestJournal.Line) -> [String: String] {
        [
            "sequence": String(line.sequence), "time": consoleDate(line.time), "method": line.method, "path": line.path,
            "status": String(line.status), "ms": String(format: "%.1f", line.milliseconds), "user": line.user ?? "",
            "code": line.errorCode ?? "", "node": line.node ?? "",
        ]
    }

    static func telemetryChart(_ file: String, hour: [RequestJournal.Minute]) -> TelemetryChart? {
        switch file {
        case "requests.svg":
            return TelemetryChart(title: "Requests per second", unit: "/s", series: [
                .init(label: "requests/s", color: TelemetryChart.palette[0], values: hour.map { Double($0.requests) / 60 }),
            ])
        case "latency.svg":
            return TelemetryChart(title: "Latency (p50, p99)", unit: "ms", series: [
                .init(label: "p50", color: TelemetryChart.palette[0], values: hour.map { $0.latency(quantile: 0.5) }),
                .init(label: "p99", color: TelemetryChart.palette[1], values: hour.map { $0.latency(quantile: 0.99) }),
            ])
        case "errors.svg":
            let codes = Set(hour.flatMap(\.errors.keys)).sorted()
            return TelemetryChart(title: "Errors per minute by code", unit: "", series: codes.enumerated().map { index, code in
                .init(label: code, color: TelemetryChart.palette[index % TelemetryChart.palette.count],
                      values: hour.map { Double($0.errors[code] ?? 0) })
            })
        case "streams.svg":
            return TelemetryChart(title: "Open push streams", unit: "", series: [
                .init(label: "open streams", color: TelemetryChart.palette[2], values: hour.map { Double($0.streams) }),
            ])
        default:
            return nil
        }
    }
}
