import Foundation

// Zones: `_defaultZone` everywhere; custom zones in the private database only.
extension Database {
    /// Creates a zone (saving an existing one is a no-op).
    /// - Throws: `invalidArguments` outside the private database, as CloudKit refuses custom zones there.
    public func save(_ zone: RecordZone) async throws -> RecordZone {
        let results = try await modifyRecordZones(saving: [zone], deleting: [])
        guard let result = results.saveResults[zone.zoneID] else { throw CloudError(.internalError, "No result for zone") }
        return try result.get()
    }

    /// - Throws: `zoneNotFound`.
    public func recordZone(for zoneID: RecordZone.ID) async throws -> RecordZone {
        let results = try await perform { db in try await db.store().fetchZones([zoneID], context: db.context) }
        guard let result = results[zoneID] else { throw CloudError(.zoneNotFound, "Zone '\(zoneID.zoneName)' not found") }
        return try result.get()
    }

    /// Every zone of this database, `_defaultZone` included.
    public func allRecordZones() async throws -> [RecordZone] {
        let results = try await perform { db in try await db.store().fetchZones(nil, context: db.context) }
        return results.values.compactMap { try? $0.get() }.sorted { $0.zoneID.zoneName < $1.zoneID.zoneName }
    }

    /// Deletes a zone and every record in it.
    @discardableResult
    public func deleteRecordZone(withID zoneID: RecordZone.ID) async throws -> RecordZone.ID {
        let results = try await modifyRecordZones(saving: [], deleting: [zoneID])
        guard let result = results.deleteResults[zoneID] else { throw CloudError(.internalError, "No result for zone") }
        try result.get()
        return zoneID
    }

    public func modifyRecordZones(saving zonesToSave: [RecordZone], deleting zoneIDsToDelete: [RecordZone.ID]) async throws
        -> (saveResults: [RecordZone.ID: Result<RecordZone, any Error>], deleteResults: [RecordZone.ID: Result<Void, any Error>]) {
        try await perform { db in
            let store = try await db.store()
            let saved = await zonesToSave.isEmpty ? [:] : try store.saveZones(zonesToSave, context: db.context)
            let deleted = await zoneIDsToDelete.isEmpty ? [:] : try store.deleteZones(zoneIDsToDelete, context: db.context)
            return (saved.mapValues { $0.mapError { $0 as any Error } }, deleted.mapValues { $0.mapError { $0 as any Error } })
        }
    }
}
