import Foundation
import LocalCloud

/// What `records export` and `records import` print with --json (`assets` for an export only).
struct TransferReport: Encodable {
    var file: String
    var records: Int
    var assets: Int?
}

extension Session {
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
            "environment": container.configuration.environment.rawValue, "database": place.database.rawValue, "records": objects,
        ]
        do {
            let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            try data.write(to: fileURL, options: .atomic)
        } catch {
            throw ConsoleFailure(message: "cannot write \(file): \(error.localizedDescription)")
        }
        if json {
            try Output.json(TransferReport(file: file, records: records.count, assets: copied))
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
        json ? try Output.json(TransferReport(file: file, records: saved)) : Output.line("Imported \(saved) record(s) from \(file)")
    }
}
