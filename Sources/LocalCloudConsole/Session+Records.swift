import Foundation
import LocalCloud

/// `{"deleted": NAME}`: what `records delete` and `zones delete` print with --json.
struct Deleted: Encodable {
    var deleted: String
}

extension Session {
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
        json ? try Output.json(Deleted(deleted: id.recordName)) : Output.line("Deleted \(id.recordName)")
    }

    func createRecord(type: String, name: String?, assignments: [String], assets: [String], place: RecordPlace) async throws {
        let known = try? await container.schema().recordTypes[type]
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
        json ? try Output.json(try RecordJSON(saved)) : Output.line("Created \(type) \(saved.recordID.recordName)")
    }

    /// Records as a table (one line each) or, with --json, as an array of objects.
    func show(_ records: [Record], single: Bool = false) throws {
        if json {
            let objects = try records.map { try RecordJSON($0) }
            if !single {
                try Output.json(objects)
            } else if let object = objects.first {
                try Output.json(object)
            } else {
                try Output.json([String: String]())
            }
            return
        }
        if single, let record = records.first {
            let object = try RecordJSON(record)
            let lines: KeyValuePairs = [
                "recordName": object.recordName, "recordType": object.recordType, "zone": object.zone,
                "createdBy": object.createdBy, "createdAt": object.createdAt,
                "modifiedBy": object.modifiedBy, "modifiedAt": object.modifiedAt,
            ]
            for (key, value) in lines {
                Output.line("\(key): \(value ?? "<null>")")
            }
            for key in record.allKeys() {
                Output.line("  \(key) = \(describe(record[key]))")
            }
            return
        }
        let keys = Array(Set(records.flatMap { $0.allKeys() })).sorted()
        Output.table(["RECORD NAME", "CREATED", "BY"] + keys, records.map { record in
            [record.recordID.recordName, record.creationDate.map(RecordJSON.date) ?? "", RecordJSON.userName(record.creatorUserRecordID) ?? ""]
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
        case let date as Date: return RecordJSON.date(date)
        case let data as Data: return "<\(data.count) bytes>"
        case let text as String:
            // Record text is data: control characters never reach the terminal raw.
            let clean = text.unicodeScalars.map { $0.properties.generalCategory == .control ? "�" : String($0) }.joined()
            return clean.count > 40 ? String(clean.prefix(39)) + "…" : clean
        case let some?: return "\(some)"
        }
    }
}
