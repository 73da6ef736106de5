import Foundation
import LocalCloud
import PostgresNIO

extension PostgresStore {
    private func checkCustomZonesAllowed(_ context: StoreContext) throws {
        guard context.scope == .private else {
            throw CloudError(.invalidArguments,
                             "Custom zones are only supported in the private database; the \(context.scope) database has only \(RecordZone.ID.defaultZoneName)")
        }
    }

    package func saveZones(_ zones: [RecordZone], context: StoreContext) async throws -> [RecordZone.ID: Result<RecordZone, CloudError>] {
        var checked: [RecordZone.ID: Result<Void, CloudError>] = [:]
        for zone in zones {
            checked[zone.zoneID] = Result {
                try checkCustomZonesAllowed(context)
                try AccessRules.checkAccount(writes: true, context: context)
                if zone.zoneID.zoneName != RecordZone.ID.defaultZoneName {
                    try FieldName.validate(zone.zoneID.zoneName, what: "Zone name")
                }
            }.mapError { $0 as? CloudError ?? CloudError(.invalidArguments, "\($0)") }
        }
        let valid = checked
        let ids = zones.map(\.zoneID)
        return try await write { connection in
            var log = ChangeLogBatch(schema: self.schema, context: context)
            var results: [RecordZone.ID: Result<RecordZone, CloudError>] = [:]
            let now = self.clock.now.timeIntervalSince1970
            for id in ids {
                if case .failure(let error)? = valid[id] {
                    results[id] = .failure(error)
                    continue
                }
                if id.zoneName != RecordZone.ID.defaultZoneName {
                    var insert = PostgresStatement("INSERT INTO \(self.schema).zones (scope, owner, zone_name, created_at) VALUES (")
                    insert.sql += [insert.bind(context.scope.rawValue), insert.bind(context.owner), insert.bind(id.zoneName), insert.bind(now)]
                        .joined(separator: ", ") + ") ON CONFLICT DO NOTHING"
                    if try await connection.execute(insert, logger: self.pool.logger) > 0 {
                        log.append(zone: id.zoneName, name: "", type: "", kind: "zoneCreated", at: now)
                    }
                }
                results[id] = .success(RecordZone(zoneID: id))
            }
            try await log.write(connection: connection, logger: self.pool.logger)
            return results
        }
    }

    package func fetchZones(_ ids: [RecordZone.ID]?, context: StoreContext) async throws -> [RecordZone.ID: Result<RecordZone, CloudError>] {
        RecordZone.lookup(ids, existing: try await zoneNames(context: context), scope: context.scope)
    }

    /// The context's zone names, the default zone included.
    func zoneNames(context: StoreContext) async throws -> Set<String> {
        var statement = PostgresStatement("SELECT zone_name FROM \(schema).zones WHERE ")
        statement.sql += "scope = \(statement.bind(context.scope.rawValue)) AND owner = \(statement.bind(context.owner))"
        let query = statement
        let names = try await call { pool in try await pool.rows(query.sql, query.binds).map { try $0.decode(String.self) } }
        return Set(names + [RecordZone.ID.defaultZoneName])
    }

    package func deleteZones(_ ids: [RecordZone.ID], context: StoreContext) async throws -> [RecordZone.ID: Result<Void, CloudError>] {
        var checked: [RecordZone.ID: CloudError] = [:]
        for id in ids {
            do {
                guard id.zoneName != RecordZone.ID.defaultZoneName else {
                    throw CloudError(.invalidArguments, "The default zone cannot be deleted")
                }
                try checkCustomZonesAllowed(context)
                try AccessRules.checkAccount(writes: true, context: context)
            } catch let error as CloudError {
                checked[id] = error
            }
        }
        let invalid = checked
        return try await write { connection in
            let logger = self.pool.logger
            var log = ChangeLogBatch(schema: self.schema, context: context)
            var results: [RecordZone.ID: Result<Void, CloudError>] = [:]
            for id in ids {
                if let error = invalid[id] {
                    results[id] = .failure(error)
                    continue
                }
                var remove = PostgresStatement("DELETE FROM \(self.schema).zones WHERE ")
                remove.sql += "scope = \(remove.bind(context.scope.rawValue)) AND owner = \(remove.bind(context.owner)) AND zone_name = \(remove.bind(id.zoneName))"
                guard try await connection.execute(remove, logger: logger) > 0 else {
                    results[id] = .failure(CloudError(.zoneNotFound, "Zone '\(id.zoneName)' does not exist in the \(context.scope) database"))
                    continue
                }
                let now = self.clock.now.timeIntervalSince1970
                var records = PostgresStatement("DELETE FROM \(self.schema).records WHERE ")
                records.sql += "scope = \(records.bind(context.scope.rawValue)) AND owner = \(records.bind(context.owner)) AND zone = \(records.bind(id.zoneName))"
                records.sql += " RETURNING record_name, record_type"
                for row in try await connection.rows(records, logger: logger) {
                    let (name, type) = try row.decode((String, String).self)
                    log.append(zone: id.zoneName, name: name, type: type, kind: "deleted", at: now)
                }
                log.append(zone: id.zoneName, name: "", type: "", kind: "zoneDeleted", at: now)
                results[id] = .success(())
            }
            try await log.write(connection: connection, logger: logger)
            return results
        }
    }
}
