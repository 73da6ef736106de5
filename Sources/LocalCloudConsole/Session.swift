import Foundation
import LocalCloud

/// One console invocation's container: the data directory, environment and user from the
/// global options (falling back to the LOCALCLOUD_* environment variables).
struct Session {
    let global: GlobalOptions
    let container: Container

    var containerIdentifier: String { container.containerIdentifier }
    var json: Bool { global.json }

    init(_ global: GlobalOptions) throws {
        self.global = global
        var configuration = Container.Configuration.fromEnvironment(identifier: global.container)
        if let dataDir = global.dataDir {
            configuration.dataDirectory = URL(fileURLWithPath: dataDir, isDirectory: true)
        }
        if let user = global.user {
            configuration.user = user.isEmpty ? nil : user
        }
        configuration.environment = global.environment == .production ? .production : .development
        container = Container(configuration: configuration)
    }

    func database(_ name: RecordPlace.DatabaseName) -> Database {
        name == .public ? container.publicCloudDatabase : container.privateCloudDatabase
    }

    func zoneID(_ place: RecordPlace) -> RecordZone.ID {
        place.zone.map { RecordZone.ID(zoneName: $0) } ?? .default
    }

    // MARK: Schema

    func schema() throws -> Schema { try container.schema() }
    func importSchema(_ imported: Schema) throws -> Schema { try container.importSchema(imported) }
    func updateSchema(_ change: (inout Schema) throws -> Void) throws -> Schema { try container.updateSchema(change) }
    func deploy() throws -> (Schema, Schema) { try container.deploySchema() }
    func resetDevelopment() throws { try container.resetDevelopment() }

    func status() throws {
        let stats = try container.statistics()
        let total = stats.recordCounts.reduce(0) { $0 + $1.count }
        if json {
            try Output.json([
                "container": containerIdentifier, "environment": global.environment.rawValue,
                "user": container.configuration.user ?? NSNull(),
                "dataDirectory": stats.dataDirectory, "databaseFile": stats.databaseFile,
                "schemaVersion": stats.schemaVersion, "records": total,
                "recordCounts": stats.recordCounts.map { ["database": $0.database, "recordType": $0.recordType, "count": $0.count] },
                "zones": stats.zoneCount, "databaseBytes": stats.databaseBytes,
                "assets": stats.assetCount, "assetBytes": stats.assetBytes,
            ])
            return
        }
        let bytes = ByteCountFormatter()
        Output.line("Container:       \(containerIdentifier) (\(global.environment.rawValue))")
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

    // MARK: Records

    func queryRecords(type: String, filter: String?, sort: String?, descending: Bool, limit: Int?, desiredKeys: [String]?,
                      place: RecordPlace) async throws {
        let predicate = filter.map { LocalCloud.Predicate(format: $0) } ?? LocalCloud.Predicate(value: true)
        let query = Query(recordType: type, predicate: predicate)
        if let sort { query.sortDescriptors = [SortDescriptor(key: sort, ascending: !descending)] }
        let db = database(place.database)
        var records: [Record] = []
        var page = try await db.records(matching: query, inZoneWith: zoneID(place), desiredKeys: desiredKeys,
                                        resultsLimit: min(limit ?? 200, 200))
        while true {
            for (_, result) in page.matchResults { records.append(try result.get()) }
            if let limit, records.count >= limit { break }
            guard let cursor = page.queryCursor else { break }
            page = try await db.records(continuingMatchFrom: cursor, desiredKeys: desiredKeys, resultsLimit: 200)
        }
        if let limit { records = Array(records.prefix(limit)) }
        try show(records)
    }

    func getRecord(name: String, place: RecordPlace) async throws {
        let record = try await database(place.database).record(for: Record.ID(recordName: name, zoneID: zoneID(place)))
        try show([record], single: true)
    }

    func deleteRecord(name: String, place: RecordPlace) async throws {
        let id = try await database(place.database).deleteRecord(withID: Record.ID(recordName: name, zoneID: zoneID(place)))
        json ? try Output.json(["deleted": id.recordName]) : Output.line("Deleted \(id.recordName)")
    }

    func createRecord(type: String, name: String?, assignments: [String], assets: [String], place: RecordPlace) async throws {
        let known = try? container.schema().recordTypes[type]
        let record = Record(recordType: type, recordID: Record.ID(recordName: name ?? UUID().uuidString, zoneID: zoneID(place)))
        for argument in assignments {
            let fieldName = String(argument.prefix { $0 != "=" && $0 != ":" })
            let assignment = try FieldAssignment(argument, schemaType: known?.field(named: fieldName)?.type.description)
            record[assignment.field] = assignment.value
        }
        for argument in assets {
            guard let equals = argument.firstIndex(of: "=") else {
                throw CloudError(.invalidArguments, "Expected --asset field=PATH, got '\(argument)'")
            }
            let path = String(argument[argument.index(after: equals)...])
            record[String(argument[..<equals])] = Asset(fileURL: URL(fileURLWithPath: (path as NSString).expandingTildeInPath))
        }
        let saved = try await database(place.database).save(record)
        json ? try Output.json(try RecordJSON.object(saved)) : Output.line("Created \(type) \(saved.recordID.recordName)")
    }

    /// Records as a table (one line each) or, with --json, as an array of objects.
    func show(_ records: [Record], single: Bool = false) throws {
        if json {
            let objects = try records.map { try RecordJSON.object($0) }
            try Output.json(single ? objects.first ?? [:] : objects)
            return
        }
        if single, let record = records.first {
            let object = try RecordJSON.object(record)
            for key in ["recordName", "recordType", "zone", "createdBy", "createdAt", "modifiedBy", "modifiedAt"] {
                Output.line("\(key): \(object[key] ?? "")")
            }
            for key in record.allKeys() {
                Output.line("  \(key) = \(describe(record[key]))")
            }
            return
        }
        let keys = Array(Set(records.flatMap { $0.allKeys() })).sorted()
        Output.table(["RECORD NAME", "CREATED", "BY"] + keys, records.map { record in
            [record.recordID.recordName, RecordJSON.date(record.creationDate) as? String ?? "", RecordJSON.userName(record.creatorUserRecordID) as? String ?? ""]
                + keys.map { describe(record[$0]) }
        })
        Output.line("\(records.count) record(s)")
    }

    func describe(_ value: (any RecordValue)?) -> String {
        switch value {
        case nil: return ""
        case let asset as Asset: return asset.fileURL?.path ?? "(asset)"
        case let location as Location: return "\(location.latitude),\(location.longitude)"
        case let reference as Record.Reference: return "→\(reference.recordID.recordName)"
        case let date as Date: return RecordJSON.date(date) as? String ?? ""
        case let data as Data: return "<\(data.count) bytes>"
        case let text as String:
            // Record text is data: control characters never reach the terminal raw.
            let clean = text.unicodeScalars.map { $0.properties.generalCategory == .control ? "�" : String($0) }.joined()
            return clean.count > 40 ? String(clean.prefix(39)) + "…" : clean
        case let some?: return "\(some)"
        }
    }

    // MARK: Export and import

    func exportRecords(to file: String, types: [String]?, place: RecordPlace) async throws {
        let fileURL = URL(fileURLWithPath: file)
        let assetsName = fileURL.lastPathComponent + ".assets"
        let assetsURL = fileURL.deletingLastPathComponent().appendingPathComponent(assetsName, isDirectory: true)
        let scope: Database.Scope = place.database == .public ? .public : .private
        let records = try container.allRecords(in: scope, zone: zoneID(place), types: types)
        let files = FileManager.default
        var copied = 0
        let objects = try records.map { record in
            try RecordJSON.object(record) { asset in
                guard let source = asset.fileURL else { return nil }
                // The store names asset files by their SHA-256, so each is copied once.
                let name = source.lastPathComponent
                let target = assetsURL.appendingPathComponent(name)
                if !files.fileExists(atPath: target.path) {
                    try files.createDirectory(at: assetsURL, withIntermediateDirectories: true)
                    try files.copyItem(at: source, to: target)
                    copied += 1
                }
                return assetsName + "/" + name
            }
        }
        let document: [String: Any] = [
            "format": "localcloud-records", "version": 1, "container": containerIdentifier,
            "environment": global.environment.rawValue, "database": place.database.rawValue, "records": objects,
        ]
        do {
            let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            try data.write(to: fileURL, options: .atomic)
        } catch {
            throw ConsoleFailure(message: "cannot write \(file): \(error.localizedDescription)")
        }
        if json {
            try Output.json(["file": file, "records": records.count, "assets": copied])
        } else {
            Output.line("Exported \(records.count) record(s) and \(copied) asset file(s) to \(file)")
        }
    }

    func importRecords(from file: String, place: RecordPlace) async throws {
        let fileURL = URL(fileURLWithPath: file)
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(contentsOf: fileURL))
        } catch {
            throw ConsoleFailure(message: "cannot read \(file): \(error.localizedDescription)")
        }
        guard let document = object as? [String: Any], document["format"] as? String == "localcloud-records",
              let items = document["records"] as? [[String: Any]] else {
            throw CloudError(.invalidArguments, "\(file) is not a localcloud records export")
        }
        let base = fileURL.deletingLastPathComponent()
        var records: [Record] = []
        for item in items {
            guard let name = item["recordName"] as? String, let type = item["recordType"] as? String else {
                throw CloudError(.invalidArguments, "A record in \(file) has no recordName or recordType")
            }
            let zone = place.zone ?? (item["zone"] as? String) ?? RecordZone.ID.defaultZoneName
            let record = Record(recordType: type, recordID: Record.ID(recordName: name, zoneID: RecordZone.ID(zoneName: zone)))
            for (key, value) in (item["fields"] as? [String: [String: Any]]) ?? [:] {
                record[key] = try RecordJSON.decode(value, field: key, base: base)
            }
            records.append(record)
        }
        let db = database(place.database)
        var saved = 0
        for start in stride(from: 0, to: records.count, by: 400) {
            let batch = Array(records[start..<min(start + 400, records.count)])
            let results = try await db.modifyRecords(saving: batch, deleting: [], savePolicy: .allKeys, atomically: true)
            for (id, result) in results.saveResults {
                do {
                    _ = try result.get()
                    saved += 1
                } catch let error as CloudError {
                    throw CloudError(error.code, "Record \(id.recordName): \(error.message)")
                }
            }
        }
        json ? try Output.json(["file": file, "records": saved]) : Output.line("Imported \(saved) record(s) from \(file)")
    }

    // MARK: Zones

    func listZones(database name: RecordPlace.DatabaseName) async throws {
        let zones = try await database(name).allRecordZones().map(\.zoneID.zoneName).sorted()
        json ? try Output.json(zones) : zones.forEach { Output.line($0) }
    }

    func createZone(_ name: String) async throws {
        let zone = try await container.privateCloudDatabase.save(RecordZone(zoneName: name))
        json ? try Output.json(["created": zone.zoneID.zoneName]) : Output.line("Created zone \(zone.zoneID.zoneName)")
    }

    func deleteZone(_ name: String) async throws {
        let id = try await container.privateCloudDatabase.deleteRecordZone(withID: RecordZone.ID(zoneName: name))
        json ? try Output.json(["deleted": id.zoneName]) : Output.line("Deleted zone \(id.zoneName) and its records")
    }
}
