import Foundation
import GRDB

extension SQLiteStore {
    // MARK: Fetch

    func fetchRecords(_ ids: [Record.ID], desiredKeys: [String]?, context: StoreContext) async throws -> [Record.ID: Result<Record, CloudError>] {
        let fieldKeys = try QuerySQL.fieldKeys(desiredKeys)
        let sql = "SELECT \(SQLQueryPlan.recordColumns) FROM records r "
            + "WHERE r.scope = ? AND r.owner = ? AND r.zone = ? AND r.record_name = ?"
        // No account has no private or shared database, even to find nothing in.
        try AccessRules.checkAccount(writes: false, context: context)
        return try await read { [self] db in
            var results: [Record.ID: Result<Record, CloudError>] = [:]
            let statement = try db.cachedStatement(sql: sql)
            for id in ids {
                let arguments: StatementArguments = [context.scope.rawValue, context.owner, id.zoneID.zoneName, id.recordName]
                guard let record = try records(statement, arguments: arguments, keys: fieldKeys).first else {
                    results[id] = .failure(SaveResolution.notFound(id))
                    continue
                }
                do {
                    let creator = record.creatorUserRecordID?.recordName ?? ""
                    try checkAccess(.fetch(recordType: record.recordType, creator: creator), context: context, db: db)
                    results[id] = .success(record)
                } catch let error as CloudError {
                    results[id] = .failure(error)
                }
            }
            return results
        }
    }

    // MARK: Modify

    /// What one save will write, prepared before the transaction (assets already copied in).
    private struct PendingSave {
        var record: Record
        var state: Record.State
        /// The keys sent to the server: all of them for `.allKeys`, else the changed ones.
        var sentKeys: [String]
        var fields: [String: FieldValue]
    }

    func modify(_ items: [ModifyItem], atomically: Bool, context: StoreContext) async throws -> [ModifyItemResult] {
        let assets = AssetStore(root: assetsDirectory, sizeLimit: context.assetSizeLimit)
        // Assets are copied in before the transaction, so the write lock is never held for file I/O.
        var prepared: [Result<PendingSave, CloudError>?] = []
        for item in items {
            guard case .save(let record, let rule) = item else {
                prepared.append(nil)
                continue
            }
            do {
                prepared.append(.success(try prepare(record, rule: rule, assets: assets)))
            } catch let error as CloudError {
                var error = error
                error.recordID = record.recordID
                prepared.append(.failure(error))
            }
        }
        let preparedSaves = prepared
        return try await write { [self] db in
            var results: [ModifyItemResult] = []
            var failed = false
            for (item, pending) in zip(items, preparedSaves) {
                let id = item.recordID
                do {
                    switch (item, pending) {
                    case (.save, .failure(let error)?):
                        throw error
                    case (.save(_, let rule), .success(let pending)?):
                        results.append(ModifyItemResult(recordID: id, outcome: .saved(try save(pending, rule: rule, context: context, db: db))))
                    case (.delete(_, let changeTag), _):
                        try delete(id, ifChangeTag: changeTag, context: context, db: db)
                        results.append(ModifyItemResult(recordID: id, outcome: .deleted))
                    case (.save, nil):
                        throw CloudError(.internalError, "The save was not prepared", recordID: id)
                    }
                } catch let error as CloudError {
                    failed = true
                    var error = error
                    error.recordID = item.isDelete ? id : (error.recordID ?? id)
                    results.append(ModifyItemResult(recordID: id, outcome: .failed(error, isDelete: item.isDelete)))
                }
            }
            if atomically && failed {
                return (ModifyItemResult.failingAtomicBatch(results, items: items), commit: false)
            }
            return (results, commit: true)
        }
    }

    private func prepare(_ record: Record, rule: SaveRule, assets: AssetStore) throws -> PendingSave {
        let (state, sentKeys) = try SaveCheck.validate(record, rule: rule)
        var fields = state.fields
        for key in sentKeys {
            guard let value = fields[key] else { continue }
            fields[key] = try importAssets(in: value, assets: assets)
        }
        try SaveCheck.checkSize(fields)
        return PendingSave(record: record, state: state, sentKeys: sentKeys, fields: fields)
    }

    private func importAssets(in value: FieldValue, assets: AssetStore) throws -> FieldValue {
        switch value {
        case .asset(let asset) where asset.contentDigest == nil:
            guard let url = asset.fileURL else {
                throw CloudError(.assetFileNotFound, "Asset has no file")
            }
            let (digest, size) = try assets.importFile(url)
            return .asset(Asset(fileURL: assets.url(forDigest: digest), contentDigest: digest, size: size))
        case .list(let items):
            return .list(try items.map { try importAssets(in: $0, assets: assets) })
        default:
            return value
        }
    }

    private func existingRow(_ id: Record.ID, context: StoreContext, db: GRDB.Database) throws -> SaveResolution.ExistingRow? {
        let statement = try db.cachedStatement(sql: """
            SELECT id, record_type, created_at, created_by, change_tag, fields FROM records
            WHERE scope = ? AND owner = ? AND zone = ? AND record_name = ?
            """)
        guard let row = try Row.fetchOne(statement, arguments: [context.scope.rawValue, context.owner, id.zoneID.zoneName, id.recordName])
        else { return nil }
        return SaveResolution.ExistingRow(id: row[0], recordType: row[1], createdAt: row[2], createdBy: row[3], changeTag: row[4], fields: row[5])
    }

    private func save(_ pending: PendingSave, rule: SaveRule, context: StoreContext, db: GRDB.Database) throws -> Record {
        let record = pending.record
        let id = record.recordID
        try requireZone(id.zoneID, context: context, db: db)
        let now = clock.now.timeIntervalSince1970
        let changeTag = Self.newChangeTag()
        var fields: [String: FieldValue]
        let rowID: Int64
        let createdAt: Double
        let createdBy: String
        var isNew = false

        // A record never saved before is usually new on the server too: try the insert first and
        // look the row up only when the name is taken, saving an index probe per new record.
        var insertedRowID: Int64?
        if pending.state.recordChangeTag == nil,
           (try? checkAccess(.create(recordType: record.recordType, fields: pending.fields), context: context, db: db)) != nil {
            insertedRowID = try insertRow(pending, now: now, changeTag: changeTag, context: context, db: db)
        }
        let existing = insertedRowID == nil ? try existingRow(id, context: context, db: db) : nil

        let decision: SaveResolution.Decision = insertedRowID != nil ? .insert : try SaveResolution.save(
            id, type: record.recordType, clientTag: pending.state.recordChangeTag,
            existing: existing, rule: rule)
        switch (decision, existing) {
        case (.conflict(let serverTag), let existing?):
            throw SaveResolution.changed(id, serverTag: serverTag, server: try fetchRow(existing.id, db: db), client: record)
        case (.update(let mergesServerFields), let existing?):
            fields = mergesServerFields
                ? SaveResolution.merged(pending.fields, sentKeys: pending.sentKeys,
                                        server: FieldsJSON.decode(existing.fields, assetURL: assetURL(forDigest:)))
                : pending.fields
            try SaveCheck.checkSize(fields)
            try checkAccess(.update(recordType: record.recordType, creator: existing.createdBy, fields: fields), context: context, db: db)
            try db.cachedStatement(sql: "UPDATE records SET modified_at = ?, modified_by = ?, change_tag = ?, fields = ? WHERE id = ?")
                .execute(arguments: [now, context.userRecordName, changeTag, FieldsJSON.encode(fields), existing.id])
            rowID = existing.id
            createdAt = existing.createdAt
            createdBy = existing.createdBy
            try db.cachedStatement(sql: "DELETE FROM records_fts WHERE rowid = ?").execute(arguments: [rowID])
            try db.cachedStatement(sql: "DELETE FROM record_assets WHERE record_id = ?").execute(arguments: [rowID])
            try db.cachedStatement(sql: "DELETE FROM record_references WHERE record_id = ?").execute(arguments: [rowID])
        case (.insert, _):
            fields = pending.fields
            isNew = true
            createdAt = now
            createdBy = context.userRecordName
            if let insertedRowID {
                rowID = insertedRowID
            } else {
                try checkAccess(.create(recordType: record.recordType, fields: fields), context: context, db: db)
                guard let inserted = try insertRow(pending, now: now, changeTag: changeTag, context: context, db: db) else {
                    throw CloudError(.internalError, "Record \(id.recordName) appeared during its own save", recordID: id)
                }
                rowID = inserted
            }
        case (.conflict, nil), (.update, nil):
            throw CloudError(.internalError, "Record \(id.recordName) was resolved against a row it does not have", recordID: id)
        }
        let searchable = try searchableFields(recordType: record.recordType, db: db)
        try writeSideTables(rowID: rowID, fields: fields, searchable: searchable, context: context, db: db)
        try logChange(context: context, zone: id.zoneID.zoneName, name: id.recordName, type: record.recordType,
                      kind: isNew ? "created" : "updated", at: now, db: db)

        return Record.stored(type: record.recordType, id: Record.ID(recordName: id.recordName, zoneID: id.zoneID), fields: fields,
                             createdAt: createdAt, modifiedAt: now, createdBy: createdBy, modifiedBy: context.userRecordName,
                             changeTag: changeTag)
    }

    /// Inserts a new row; `nil` when a record with that name already exists.
    private func insertRow(_ pending: PendingSave, now: Double, changeTag: String, context: StoreContext, db: GRDB.Database) throws -> Int64? {
        let id = pending.record.recordID
        try db.cachedStatement(sql: """
            INSERT INTO records (scope, owner, zone, record_name, record_type, created_at, modified_at,
                                 created_by, modified_by, change_tag, fields)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (scope, owner, zone, record_name) DO NOTHING
            """).execute(arguments: [
                context.scope.rawValue, context.owner, id.zoneID.zoneName, id.recordName, pending.record.recordType,
                now, now, context.userRecordName, context.userRecordName, changeTag, FieldsJSON.encode(pending.fields),
            ])
        return db.changesCount > 0 ? db.lastInsertedRowID : nil
    }

    /// The full-text row, the asset usage rows and the reference rows of a saved record.
    private func writeSideTables(rowID: Int64, fields: [String: FieldValue], searchable: Set<String>?,
                                 context: StoreContext, db: GRDB.Database) throws {
        var text: [String] = []
        var digests: Set<String> = []
        var references: [Record.Reference] = []
        func collect(_ value: FieldValue, searchable isSearchable: Bool) {
            switch value {
            case .string(let s): if isSearchable { text.append(s) }
            case .asset(let a): if let d = a.contentDigest { digests.insert(d) }
            case .reference(let r): references.append(r)
            case .list(let items): items.forEach { collect($0, searchable: isSearchable) }
            default: break
            }
        }
        for (key, value) in fields {
            collect(value, searchable: searchable?.contains(key) ?? true)
        }
        if !text.isEmpty {
            let body = text.joined(separator: "\n")
            try db.cachedStatement(sql: "INSERT INTO records_fts (rowid, body, segmented) VALUES (?, ?, ?)")
                .execute(arguments: [rowID, body, TypedSearchTerms.segmented(body)])
        }
        for digest in digests {
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO record_assets (record_id, digest) VALUES (?, ?)")
                .execute(arguments: [rowID, digest])
        }
        for reference in references {
            try db.cachedStatement(sql: """
                INSERT INTO record_references (record_id, scope, owner, target_zone, target_name, action) VALUES (?, ?, ?, ?, ?, ?)
                """).execute(arguments: [rowID, context.scope.rawValue, context.owner, reference.recordID.zoneID.zoneName,
                                         reference.recordID.recordName, reference.action.rawValue])
        }
    }

    /// `parent`: a deleted record's parent name ("" for none), see ``ZoneChangeCollector/Change/parent``.
    func logChange(context: StoreContext, zone: String, name: String, type: String, kind: String, at: Double,
                   parent: String? = nil, db: GRDB.Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO change_log (scope, owner, zone, record_name, record_type, kind, at, modified_by, parent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [context.scope.rawValue, context.owner, zone, name, type, kind, at, context.userRecordName, parent])
    }

    private func fetchRow(_ rowID: Int64, db: GRDB.Database) throws -> Record? {
        let statement = try db.cachedStatement(sql: "SELECT \(SQLQueryPlan.recordColumns) FROM records r WHERE r.id = ?")
        return try records(statement, arguments: [rowID]).first
    }

    func requireZone(_ zoneID: RecordZone.ID, context: StoreContext, db: GRDB.Database) throws {
        guard zoneID.zoneName != RecordZone.ID.defaultZoneName else { return }
        let exists = try Bool.fetchOne(db, sql: "SELECT 1 FROM zones WHERE scope = ? AND owner = ? AND zone_name = ?",
                                       arguments: [context.scope.rawValue, context.owner, zoneID.zoneName]) ?? false
        guard exists else {
            throw CloudError(.zoneNotFound, "Zone '\(zoneID.zoneName)' does not exist in the \(context.scope) database")
        }
    }

    // MARK: Delete

    private func delete(_ id: Record.ID, ifChangeTag changeTag: String?, context: StoreContext, db: GRDB.Database) throws {
        guard let existing = try existingRow(id, context: context, db: db) else { throw SaveResolution.notFound(id) }
        if let serverTag = SaveResolution.deleteConflict(existing: existing, ifChangeTag: changeTag) {
            throw SaveResolution.changed(id, serverTag: serverTag, server: try fetchRow(existing.id, db: db))
        }
        try checkAccess(.delete(recordType: existing.recordType, creator: existing.createdBy), context: context, db: db)
        try deleteRow(existing.id, zone: id.zoneID.zoneName, name: id.recordName, type: existing.recordType, context: context, db: db)
    }

    /// Deletes a row and, following `.deleteSelf` references, every record that points at it.
    func deleteRow(_ rowID: Int64, zone: String, name: String, type: String, context: StoreContext, db: GRDB.Database) throws {
        let parent = try String.fetchOne(db.cachedStatement(sql: "SELECT json_extract(fields, '$.\(Record.parentKey).v') FROM records WHERE id = ?"),
                                         arguments: [rowID])
        try db.cachedStatement(sql: "DELETE FROM records WHERE id = ?").execute(arguments: [rowID])
        try db.cachedStatement(sql: "DELETE FROM records_fts WHERE rowid = ?").execute(arguments: [rowID])
        try logChange(context: context, zone: zone, name: name, type: type, kind: "deleted", at: clock.now.timeIntervalSince1970,
                      parent: parent ?? "", db: db)
        let referrers = try Row.fetchAll(db, sql: """
            SELECT DISTINCT r.id, r.zone, r.record_name, r.record_type FROM record_references ref
            JOIN records r ON r.id = ref.record_id
            WHERE ref.scope = ? AND ref.owner = ? AND ref.target_zone = ? AND ref.target_name = ? AND ref.action = 1
            """, arguments: [context.scope.rawValue, context.owner, zone, name])
        for row in referrers {
            let referrerID: Int64 = row[0]
            // A reference cycle may already have removed it.
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM records WHERE id = ?", arguments: [referrerID]) ?? false else { continue }
            try deleteRow(referrerID, zone: row[1], name: row[2], type: row[3], context: context, db: db)
        }
    }
}
