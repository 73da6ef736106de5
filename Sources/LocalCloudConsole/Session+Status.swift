import Foundation
import LocalCloud

/// `localcloud status --json`.
struct StatusReport: Encodable {
    struct RecordCount: Encodable {
        var database: String
        var recordType: String
        var count: Int
    }

    var container: String
    var environment: String
    /// `null` without an account (written, not left out).
    var user: String?
    var dataDirectory: String
    var databaseFile: String
    var schemaVersion: Int
    var records: Int
    var recordCounts: [RecordCount]
    var zones: Int
    var databaseBytes: Int64
    var assets: Int
    var assetBytes: Int64

    private enum CodingKeys: String, CodingKey {
        case container, environment, user, dataDirectory, databaseFile, schemaVersion, records, recordCounts, zones,
             databaseBytes, assets, assetBytes
    }

    func encode(to encoder: any Encoder) throws {
        var keyed = encoder.container(keyedBy: CodingKeys.self)
        try keyed.encode(container, forKey: .container)
        try keyed.encode(environment, forKey: .environment)
        try keyed.encode(user, forKey: .user)
        try keyed.encode(dataDirectory, forKey: .dataDirectory)
        try keyed.encode(databaseFile, forKey: .databaseFile)
        try keyed.encode(schemaVersion, forKey: .schemaVersion)
        try keyed.encode(records, forKey: .records)
        try keyed.encode(recordCounts, forKey: .recordCounts)
        try keyed.encode(zones, forKey: .zones)
        try keyed.encode(databaseBytes, forKey: .databaseBytes)
        try keyed.encode(assets, forKey: .assets)
        try keyed.encode(assetBytes, forKey: .assetBytes)
    }
}

extension Session {
    func status() async throws {
        let stats = try await container.statistics()
        let total = stats.recordCounts.reduce(0) { $0 + $1.count }
        if json {
            try Output.json(StatusReport(
                container: containerIdentifier, environment: container.configuration.environment.rawValue,
                user: container.configuration.user, dataDirectory: stats.dataDirectory, databaseFile: stats.databaseFile,
                schemaVersion: stats.schemaVersion, records: total,
                recordCounts: stats.recordCounts.map { .init(database: $0.database, recordType: $0.recordType, count: $0.count) },
                zones: stats.zoneCount, databaseBytes: stats.databaseBytes, assets: stats.assetCount, assetBytes: stats.assetBytes))
            return
        }
        let bytes = ByteCountFormatter()
        Output.line("Container:       \(containerIdentifier) (\(container.configuration.environment.rawValue))")
        Output.line("User:            \(container.configuration.user ?? "(no account)")")
        Output.line("Data directory:  \(stats.dataDirectory)")
        Output.line("Database:        \(stats.databaseFile) (\(bytes.string(fromByteCount: stats.databaseBytes)))")
        Output.line("Assets:          \(stats.assetCount) files, \(bytes.string(fromByteCount: stats.assetBytes))")
        Output.line("Schema version:  \(stats.schemaVersion)")
        Output.line("Custom zones:    \(stats.zoneCount)")
        Output.line("Records:         \(total)")
        for count in stats.recordCounts {
            Output.line("  \(count.database) \(count.recordType): \(count.count)")
        }
    }
}
