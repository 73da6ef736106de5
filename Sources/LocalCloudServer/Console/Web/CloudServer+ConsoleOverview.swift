import Foundation
import Hummingbird
import LocalCloud

// Overview (containers and environments with their counts), and the audit log.
extension CloudServer {
    func addConsoleOverview(_ router: Router<ServerRequestContext>, _ console: WebConsole) {
        consoleRoute(router, .get, "overview") { request in
            let place = try request.place(console)
            var environments: [[String: Any]] = []
            for environment in [Container.Environment.development, .production] {
                let container = try self.registry.container(place.container, environment: environment, user: nil)
                let stats = try await console.snapshots.statistics(of: container, identifier: place.container, environment: environment)
                let records = stats.recordCounts.reduce(0) { $0 + $1.count }
                environments.append([
                    "name": environment.rawValue,
                    "schemaVersion": stats.schemaVersion,
                    "records": records,
                    "zones": stats.zoneCount,
                    "assets": stats.assetCount,
                    "storage": Self.byteCount(stats.databaseBytes + stats.assetBytes),
                    "types": stats.recordCounts.map { ["database": $0.database, "type": $0.recordType, "count": $0.count] },
                ])
            }
            let users = try await self.state.identity.users(container: place.container).count
            let (hour, openStreams) = try await console.lastHour()
            let lastMinute = hour.last?.requests ?? 0
            var errors: [String: Int] = [:]
            for minute in hour { for (code, count) in minute.errors { errors[code, default: 0] += count } }
            return .page(template: "overview", title: "Overview", section: "overview", context: [
                "containers": self.consoleContainers(current: place.container).map { name in
                    ["name": name, "url": "/console/overview" + ConsoleForm.query([("c", name)]), "current": name == place.container]
                        as [String: Any]
                },
                "environments": environments,
                "users": users,
                "requestsPerSecond": String(format: "%.2f", Double(lastMinute) / 60),
                "requestsLastHour": hour.reduce(0) { $0 + $1.requests },
                "errors": errors.sorted { $0.key < $1.key }.map { ["code": $0.key, "count": $0.value] },
                "hasErrors": !errors.isEmpty,
                "openStreams": openStreams,
            ])
        }
        consoleRoute(router, .get, "audit") { request in
            _ = try request.place(console)
            let entries = try await console.store.auditEntries(limit: 500)
            return .page(template: "audit", title: "Audit log", section: "audit", context: [
                "entries": entries.map { entry in
                    ["time": Self.consoleDate(entry.time), "admin": entry.admin, "action": entry.action, "detail": entry.detail]
                },
            ])
        }
    }

    /// The containers in the data directory (those with a store or accounts), and `current`.
    func consoleContainers(current: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: configuration.dataDirectory.path)) ?? []
        var found = Set(names.filter { name in
            guard (try? StoreRegistry.validate(containerIdentifier: name)) != nil else { return false }
            let directory = configuration.dataDirectory.appendingPathComponent(name)
            return ["development.sqlite", "production.sqlite", "identity.sqlite"].contains { file in
                FileManager.default.fileExists(atPath: directory.appendingPathComponent(file).path)
            }
        })
        found.insert(current)
        return found.sorted()
    }

    static func byteCount(_ bytes: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file)
    }

    static func consoleDate(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false).timeSeparator(.colon))
    }
}
