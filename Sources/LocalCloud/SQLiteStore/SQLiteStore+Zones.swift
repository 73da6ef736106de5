import Foundation
import GRDB

extension SQLiteStore {
    private func checkCustomZonesAllowed(_ context: StoreContext) throws {
        guard context.scope == .private else {
            throw CloudError(.invalidArguments,
                             "Custom zones are only supported in the private database; the \(context.scope) database has only \(RecordZone.ID.defaultZoneName)")
        }
    }

    func saveZones(_ zones: [RecordZone], context: StoreContext) async throws -> [RecordZone.ID: Result<RecordZone, CloudError>] {
        try await write { [self] db in
            var results: [RecordZone.ID: Result<RecordZone, CloudError>] = [:]
            for zone in zones {
                do {
                    try checkCustomZonesAllowed(context)
                    try checkAccess(.modifyZone, context: context, db: db)
                    if zone.zoneID.zoneName != RecordZone.ID.defaultZoneName {
                        try FieldName.validate(zone.zoneID.zoneName, what: "Zone name")
                        try db.execute(sql: "INSERT OR IGNORE INTO zones (scope, owner, zone_name, created_at) VALUES (?, ?, ?, ?)",
                                       arguments: [context.scope.rawValue, context.owner, zone.zoneID.zoneName, clock.now.timeIntervalSince1970])
                        if db.changesCount > 0 {
                            try logChange(context: context, zone: zone.zoneID.zoneName, name: "", type: "", kind: "zoneCreated",
                                          at: clock.now.timeIntervalSince1970, db: db)
                        }
                    }
                    results[zone.zoneID] = .success(RecordZone(zoneID: zone.zoneID))
                } catch let error as CloudError {
                    results[zone.zoneID] = .failure(error)
                }
            }
            return (results, commit: true)
        }
    }

    func fetchZones(_ ids: [RecordZone.ID]?, context: StoreContext) async throws -> [RecordZone.ID: Result<RecordZone, CloudError>] {
        try await read { db in
            let names = try String.fetchAll(db, sql: "SELECT zone_name FROM zones WHERE scope = ? AND owner = ? ORDER BY zone_name",
                                            arguments: [context.scope.rawValue, context.owner])
            return RecordZone.lookup(ids, existing: Set(names + [RecordZone.ID.defaultZoneName]), scope: context.scope)
        }
    }

    func deleteZones(_ ids: [RecordZone.ID], context: StoreContext) async throws -> [RecordZone.ID: Result<Void, CloudError>] {
        try await write { [self] db in
            var results: [RecordZone.ID: Result<Void, CloudError>] = [:]
            for id in ids {
                do {
                    guard id.zoneName != RecordZone.ID.defaultZoneName else {
                        throw CloudError(.invalidArguments, "The default zone cannot be deleted")
                    }
                    try checkCustomZonesAllowed(context)
                    try checkAccess(.modifyZone, context: context, db: db)
                    try requireZone(id, context: context, db: db)
                    let now = clock.now.timeIntervalSince1970
                    let rows = try Row.fetchAll(db, sql: "SELECT id, record_name, record_type FROM records WHERE scope = ? AND owner = ? AND zone = ?",
                                                arguments: [context.scope.rawValue, context.owner, id.zoneName])
                    for row in rows {
                        try db.execute(sql: "DELETE FROM records_fts WHERE rowid = ?", arguments: [row[0] as Int64])
                        try logChange(context: context, zone: id.zoneName, name: row[1], type: row[2], kind: "deleted", at: now, db: db)
                    }
                    try db.execute(sql: "DELETE FROM records WHERE scope = ? AND owner = ? AND zone = ?",
                                   arguments: [context.scope.rawValue, context.owner, id.zoneName])
                    try db.execute(sql: "DELETE FROM zones WHERE scope = ? AND owner = ? AND zone_name = ?",
                                   arguments: [context.scope.rawValue, context.owner, id.zoneName])
                    try logChange(context: context, zone: id.zoneName, name: "", type: "", kind: "zoneDeleted", at: now, db: db)
                    results[id] = .success(())
                } catch let error as CloudError {
                    results[id] = .failure(error)
                }
            }
            return (results, commit: true)
        }
    }
}
