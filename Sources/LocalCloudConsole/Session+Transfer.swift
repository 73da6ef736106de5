import Foundation
import LocalCloud

/// What `records export` and `records import` print with --json (`assets` for an export only).
struct TransferReport: Encodable {
    var file: String
    var records: Int
    var assets: Int?
}

/// A `records export` file: `{"format": "localcloud-records", "version": 1, "container", "environment",
/// "database", "records": [RecordJSON]}`. Asset files are copied beside it, into `<file>.assets/`.
struct RecordsExport: Codable {
    static let format = "localcloud-records"

    var format = RecordsExport.format
    var version = 1
    var container: String
    var environment: String
    var database: String
    var records: [RecordJSON]

    /// Only `format` and `records` are needed to import a file.
    private enum CodingKeys: String, CodingKey {
        case format, version, container, environment, database, records
    }

    init(container: String, environment: String, database: String, records: [RecordJSON]) {
        self.container = container
        self.environment = environment
        self.database = database
        self.records = records
    }

    init(from decoder: any Decoder) throws {
        let keyed = try decoder.container(keyedBy: CodingKeys.self)
        format = try keyed.decode(String.self, forKey: .format)
        version = (try? keyed.decodeIfPresent(Int.self, forKey: .version)) ?? 1
        container = (try? keyed.decodeIfPresent(String.self, forKey: .container)) ?? ""
        environment = (try? keyed.decodeIfPresent(String.self, forKey: .environment)) ?? ""
        database = (try? keyed.decodeIfPresent(String.self, forKey: .database)) ?? ""
        records = try keyed.decode([RecordJSON].self, forKey: .records)
    }
}

extension Session {
    // MARK: Export and import

    func exportRecords(to file: String, types: [String]?, place: RecordPlace) async throws {
        let fileURL = URL(fileURLWithPath: file)
        let assetsName = fileURL.lastPathComponent + ".assets"
        let assetsURL = fileURL.deletingLastPathComponent().appendingPathComponent(assetsName, isDirectory: true)
        let scope: Database.Scope = place.database == .public ? .public : .private
        let records = try await container.allRecords(in: scope, zone: zoneID(place), types: types)
        let files = FileManager.default
        var copied = 0
        let objects = try records.map { record in
            try RecordJSON(record) { asset in
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
        let document = RecordsExport(
            container: containerIdentifier, environment: container.configuration.environment.rawValue,
            database: place.database.rawValue, records: objects)
        do {
            try Output.encoded(document).write(to: fileURL, options: .atomic)
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
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch {
            throw ConsoleFailure(message: "cannot read \(file): \(error.localizedDescription)")
        }
        let document: RecordsExport
        do {
            document = try JSONDecoder().decode(RecordsExport.self, from: data)
        } catch let error as DecodingError {
            throw Self.importFailure(error, file: file)
        } catch {
            throw ConsoleFailure(message: "cannot read \(file): \(error.localizedDescription)")
        }
        guard document.format == RecordsExport.format else {
            throw CloudError(.invalidArguments, "\(file) is not a localcloud records export")
        }
        let base = fileURL.deletingLastPathComponent()
        var records: [Record] = []
        for item in document.records {
            let zone = place.zone ?? item.zone
            let record = Record(recordType: item.recordType, recordID: Record.ID(recordName: item.recordName, zoneID: RecordZone.ID(zoneName: zone)))
            for (key, value) in item.fields {
                record[key] = try value.recordValue(field: key, base: base)
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

    /// A file that is not JSON cannot be read; JSON that is not an export is "not a localcloud records
    /// export"; a record without its name or type says so.
    private static func importFailure(_ error: DecodingError, file: String) -> any Error {
        if case .dataCorrupted(let context) = error, context.codingPath.isEmpty {
            let reason = (context.underlyingError ?? error).localizedDescription
            return ConsoleFailure(message: "cannot read \(file): \(reason)")
        }
        let path: [any CodingKey] = switch error {
        case .keyNotFound(let key, let context): context.codingPath + [key]
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context): context.codingPath
        @unknown default: []
        }
        let keys = path.map(\.stringValue)
        if keys.count == 3, keys[0] == "records", ["recordName", "recordType"].contains(keys[2]) {
            return CloudError(.invalidArguments, "A record in \(file) has no recordName or recordType")
        }
        return CloudError(.invalidArguments, "\(file) is not a localcloud records export")
    }
}
