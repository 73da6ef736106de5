import Foundation
import LocalCloud
import PostgresNIO
import Synchronization

extension PostgresStore {
    /// The columns every record is read from, in ``record(_:keys:)``'s order.
    static let recordColumns =
        "r.id, r.record_name, r.record_type, r.zone, r.created_at, r.modified_at, r.created_by, r.modified_by, r.change_tag, r.fields_text"
    static let recordColumnCount = 10

    // MARK: Fetch

    package func fetchRecords(_ ids: [Record.ID], desiredKeys: [String]?, context: StoreContext) async throws -> [Record.ID: Result<Record, CloudError>] {
        let keys = try QuerySQL.fieldKeys(desiredKeys)
        // No account has no private or shared database, even to find nothing in.
        try AccessRules.checkAccount(writes: false, context: context)
        let byZone = Dictionary(grouping: ids, by: \.zoneID.zoneName)
        let found: [(id: Record.ID, record: Record?)] = try await call { pool in
            try await pool.withConnection { connection in
                var found: [(id: Record.ID, record: Record?)] = []
                for (zone, zoneIDs) in byZone {
                    var statement = PostgresStatement("SELECT \(Self.recordColumns) FROM \(self.schema).records r WHERE ")
                    statement.sql += "r.scope = \(statement.bind(context.scope.rawValue)) AND r.owner = \(statement.bind(context.owner))"
                    statement.sql += " AND r.zone = \(statement.bind(zone)) AND r.record_name = ANY(\(statement.bind(zoneIDs.map(\.recordName))))"
                    var byName: [String: Record] = [:]
                    var reader = PostgresRowReader(keys: keys, assetCache: self.assetCache)
                    for row in try await connection.rows(statement, logger: pool.logger) {
                        let record = try reader.record(row)
                        byName[record.recordID.recordName] = record
                    }
                    for id in zoneIDs { found.append((id, byName[id.recordName])) }
                }
                return found
            }
        }
        try await materializeAssets(in: found.compactMap(\.record))
        var results: [Record.ID: Result<Record, CloudError>] = [:]
        let anyFetch = AccessRequest.fetch(recordType: "", creator: "")
        let schema = access.needsSchema(anyFetch, context: context) ? try await currentSchema() : Schema()
        for (id, record) in found {
            guard let record else {
                results[id] = .failure(SaveResolution.notFound(id))
                continue
            }
            do {
                let fetch = AccessRequest.fetch(recordType: record.recordType, creator: record.creatorUserRecordID?.recordName ?? "")
                _ = try access.decide(fetch, schema: schema, context: context)
                results[id] = .success(record)
            } catch let error as CloudError {
                results[id] = .failure(error)
            }
        }
        return results
    }

    /// The record in a row selected with ``recordColumns`` (and any sort columns after them);
    /// `zoneID`, when given, is the zone ID it gets instead of its stored zone's. A page reads its
    /// rows through one ``PostgresRowReader``.
    func record(_ row: PostgresRow, keys: [String]?, zoneID: RecordZone.ID? = nil) throws -> Record {
        var reader = PostgresRowReader(keys: keys, zoneID: zoneID, assetCache: assetCache)
        return try reader.record(row)
    }

    /// Stored fields (``FieldsJSON``), only `keys` when given, with assets in the local cache.
    static func decodeFields(_ json: String, keys: [String]?, cache: URL) -> [String: FieldValue] {
        var json = json
        return json.withUTF8 { decodeFields($0, keys: keys, cache: cache) }
    }

    /// ``decodeFields(_:keys:cache:)`` from the JSON's UTF-8 bytes.
    static func decodeFields(_ json: UnsafeBufferPointer<UInt8>, keys: [String]?, cache: URL) -> [String: FieldValue] {
        FieldsJSON.decode(json, keys: keys) { assetURL(digest: $0, in: cache) }
    }

    // MARK: Modify

    /// What one save will write, prepared before the transaction.
    struct PendingSave: Sendable {
        var record: Record
        var changeTag: String?
        /// The keys sent to the server: all of them for `.allKeys` and new records, else the changed ones.
        var sentKeys: [String]
        var fields: [String: FieldValue]
        /// Asset bytes the save brings, by digest, inserted in the save's transaction.
        var assets: [String: Data]
    }

    package func modify(_ items: [ModifyItem], atomically: Bool, context: StoreContext) async throws -> [ModifyItemResult] {
        var prepared: [Result<PendingSave, CloudError>?] = []
        for item in items {
            guard case .save(let record, let rule) = item else {
                prepared.append(nil)
                continue
            }
            prepared.append(Result { try prepare(record, rule: rule, context: context) }
                .mapError { $0 as? CloudError ?? CloudError(.internalError, "\($0)") })
        }
        let preparedSaves = prepared
        // Group commit: modifies that arrive while a transaction runs share the next one.
        let outcome = Mutex<Result<[ModifyItemResult], any Error>?>(nil)
        let newRecord = await newRecord(items, prepared: preparedSaves, context: context) { record in
            outcome.withLock { $0 = .success([ModifyItemResult(recordID: record.recordID, outcome: .saved(record))]) }
        }
        let job = WriteJob(
            run: { connection, logger in
                do {
                    let run = try await self.modifyItems(items, prepared: preparedSaves, atomically: atomically, context: context,
                                                         connection: connection, logger: logger)
                    outcome.withLock { $0 = .success(run.results) }
                    return run.log
                } catch {
                    outcome.withLock { $0 = .failure(error) }
                    return nil
                }
            },
            fail: { error in outcome.withLock { $0 = .failure(error) } },
            newRecord: newRecord)
        // Batches run side by side: two that lock the same rows in opposite orders deadlock, and
        // PostgreSQL ends one of them; its modify runs again.
        for attempt in 1...3 {
            await batcher.submit(job) { [self] jobs in await commitBatch(jobs) }
            guard attempt < 3, case .failure(let error)? = outcome.withLock({ $0 }), Self.isDeadlock(error) else { break }
        }
        let results: [ModifyItemResult]
        switch outcome.withLock({ $0 }) {
        case .success(let value)?: results = value
        case .failure(let error)?: throw PostgresPool.cloudError(error)
        case nil: throw CloudError(.internalError, "The modify produced no result")
        }
        try await materializeAssets(in: results.compactMap { if case .saved(let r) = $0.outcome { r } else { nil } })
        return results
    }

    /// One modify's items in the batch's open transaction: their results, and the change-log rows
    /// to write, or `nil` when the modify's work must be rolled back (an atomic batch that failed,
    /// or a single item that failed outside a savepoint).
    private func modifyItems(_ items: [ModifyItem], prepared: [Result<PendingSave, CloudError>?], atomically: Bool,
                             context: StoreContext, connection: PostgresConnection,
                             logger: Logger) async throws -> (results: [ModifyItemResult], log: ChangeLogBatch?) {
        var log = ChangeLogBatch(schema: schema, context: context)
        var results: [ModifyItemResult] = []
        var failed = false
        // Each item in a savepoint: a failed item leaves nothing behind, the others still commit.
        // A single item needs none: when it fails, the modify's work is rolled back.
        let usesSavepoints = items.count > 1
        for (item, preparation) in zip(items, prepared) {
            if usesSavepoints { try await connection.query("SAVEPOINT item", logger: logger) }
            do {
                switch item {
                case .save(_, let rule):
                    guard let preparation else { throw CloudError(.internalError, "Save was not prepared") }
                    let pending = try preparation.get()
                    let saved = try await save(pending, rule: rule, context: context, log: &log, connection: connection, logger: logger)
                    results.append(ModifyItemResult(recordID: item.recordID, outcome: .saved(saved)))
                case .delete(let id, let changeTag):
                    try await delete(id, ifChangeTag: changeTag, context: context, log: &log, connection: connection, logger: logger)
                    results.append(ModifyItemResult(recordID: id, outcome: .deleted))
                }
                if usesSavepoints { try await connection.query("RELEASE SAVEPOINT item", logger: logger) }
            } catch let error as CloudError {
                if usesSavepoints { try await connection.query("ROLLBACK TO SAVEPOINT item", logger: logger) }
                log.rollBack(to: results.count)
                failed = true
                results.append(ModifyItemResult(recordID: item.recordID, outcome: .failed(error, isDelete: item.isDelete)))
                if atomically { break }
            }
            log.markItem(results.count)
        }
        if failed && (atomically || !usesSavepoints) {
            return (atomically ? ModifyItemResult.failingAtomicBatch(results, items: items) : results, nil)
        }
        return (results, log)
    }

    /// One transaction for a batch of modifies (``WriteBatcher``), then every change-log row under
    /// the log lock, and one COMMIT. The modifies run one after the other without savepoints (two
    /// round trips less each); when one of them fails, the transaction is rolled back and the batch
    /// runs again with each modify in a savepoint of its own, so the failed one leaves the others,
    /// and so do the next batches for a while (``savepointBatchesLeft``). A failure of the
    /// transaction itself fails every modify in it. New records with nothing beside their rows
    /// go first, all in one statement (``insertNewRecords(_:)``); the rest take the transaction.
    func commitBatch(_ jobs: [WriteJob]) async {
        let jobs = await insertNewRecords(jobs)
        guard !jobs.isEmpty else { return }
        do {
            let inSavepoints = savepointBatchesLeft.load(ordering: .relaxed) > 0
            if inSavepoints { savepointBatchesLeft.subtract(1, ordering: .relaxed) }
            if try await commitBatchOnce(jobs, savepoints: inSavepoints) == .rerunWithSavepoints {
                savepointBatchesLeft.store(Self.savepointBatchesAfterAFailure, ordering: .relaxed)
                _ = try await commitBatchOnce(jobs, savepoints: true)
            }
        } catch {
            for job in jobs { job.fail(error) }
        }
    }

    /// Whether PostgreSQL ended the transaction to break a deadlock (SQLSTATE 40P01).
    static func isDeadlock(_ error: any Error) -> Bool {
        let cause = (error as? CloudError)?.cause ?? error
        return (cause as? PSQLError)?.serverInfo?[.sqlState] == "40P01"
    }

    private enum BatchOutcome: Equatable { case committed(savedSchema: Bool), nothingToCommit, rerunWithSavepoints }

    /// How many batches keep their savepoints after one that failed without them.
    static let savepointBatchesAfterAFailure = 64

    private func commitBatchOnce(_ jobs: [WriteJob], savepoints: Bool) async throws -> BatchOutcome {
        let outcome: BatchOutcome = try await call { pool in
            try await pool.withConnection { connection in
                let logger = pool.logger
                try await connection.query("BEGIN ISOLATION LEVEL READ COMMITTED", logger: logger)
                _ = self.schemaSaved(on: connection)
                do {
                    let nested = savepoints && jobs.count > 1
                    var logs: [ChangeLogBatch] = []
                    for job in jobs {
                        if nested { try await connection.query("SAVEPOINT job", logger: logger) }
                        if let log = await job.run(connection, logger) {
                            if nested { try await connection.query("RELEASE SAVEPOINT job", logger: logger) }
                            logs.append(log)
                        } else if nested {
                            try await connection.query("ROLLBACK TO SAVEPOINT job", logger: logger)
                        } else if jobs.count > 1 {
                            try await connection.query("ROLLBACK", logger: logger)
                            return .rerunWithSavepoints
                        }
                    }
                    guard !logs.isEmpty else {
                        try await connection.query("ROLLBACK", logger: logger)
                        return .nothingToCommit
                    }
                    try await ChangeLogBatch.write(logs, connection: connection, logger: logger)
                    try await connection.query("COMMIT", logger: logger)
                    return .committed(savedSchema: self.schemaSaved(on: connection))
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
        }
        switch outcome {
        case .committed(savedSchema: true): listener.noteLocalSchemaCommit()
        case .committed(savedSchema: false): committed()
        case .nothingToCommit, .rerunWithSavepoints: break
        }
        return outcome
    }

    private func prepare(_ record: Record, rule: SaveRule, context: StoreContext) throws -> PendingSave {
        let (state, sentKeys) = try SaveCheck.validate(record, rule: rule)
        var fields = state.fields
        var assets: [String: Data] = [:]
        for key in sentKeys {
            guard let value = fields[key] else { continue }
            fields[key] = try importAssets(in: value, limit: context.assetSizeLimit, into: &assets)
        }
        try SaveCheck.checkSize(fields)
        return PendingSave(record: record, changeTag: state.recordChangeTag, sentKeys: sentKeys, fields: fields, assets: assets)
    }

    /// Reads a new asset's file and names it by its SHA-256; the bytes go in with the save.
    private func importAssets(in value: FieldValue, limit: Int64, into assets: inout [String: Data]) throws -> FieldValue {
        switch value {
        case .asset(let asset) where asset.contentDigest == nil:
            guard let url = asset.fileURL else { throw CloudError(.assetFileNotFound, "Asset has no file") }
            let (digest, data) = try Self.readAsset(url, limit: limit)
            assets[digest] = data
            return .asset(Asset(fileURL: Self.assetURL(digest: digest, in: assetCache), contentDigest: digest, size: Int64(data.count)))
        case .list(let items):
            return .list(try items.map { try importAssets(in: $0, limit: limit, into: &assets) })
        default:
            return value
        }
    }

    /// The row of `id`, locked until the transaction ends (`FOR UPDATE`): another node's save of
    /// the same record waits for this one.
    private func lockedRow(_ id: Record.ID, context: StoreContext, connection: PostgresConnection, logger: Logger) async throws -> SaveResolution.ExistingRow? {
        var statement = PostgresStatement("SELECT id, record_type, created_at, created_by, change_tag, fields_text FROM \(schema).records WHERE ")
        statement.sql += "scope = \(statement.bind(context.scope.rawValue)) AND owner = \(statement.bind(context.owner))"
        statement.sql += " AND zone = \(statement.bind(id.zoneID.zoneName)) AND record_name = \(statement.bind(id.recordName)) FOR UPDATE"
        guard let row = try await connection.rows(statement, logger: logger).first else { return nil }
        let (rowID, type, createdAt, createdBy, tag, fields) = try row.decode((Int64, String, Double, String, String, String).self)
        return SaveResolution.ExistingRow(id: rowID, recordType: type, createdAt: createdAt, createdBy: createdBy, changeTag: tag, fields: fields)
    }

    private func save(_ pending: PendingSave, rule: SaveRule, context: StoreContext, log: inout ChangeLogBatch,
                      connection: PostgresConnection, logger: Logger) async throws -> Record {
        let record = pending.record
        let id = record.recordID
        try await requireZone(id.zoneID, context: context, connection: connection, logger: logger)
        let now = self.clock.now.timeIntervalSince1970
        let changeTag = Self.newChangeTag()
        var fields = pending.fields
        // The row written: its ID, its creation, and whether the save created it.
        let written: (rowID: Int64, createdAt: Double, createdBy: String, isNew: Bool)

        // Most saves create a record: the INSERT goes first, one statement where the lookup and the
        // INSERT were two. A row already there (or a create the rules refuse) inserts nothing, and
        // the save takes the general path below, which decides between update, conflict and refusal.
        if pending.changeTag == nil,
           let inserted = try await insertIfNew(pending, fields: fields, changeTag: changeTag, at: now, context: context,
                                                connection: connection, logger: logger) {
            written = (inserted, now, context.userRecordName, true)
        } else {
            let existing = try await lockedRow(id, context: context, connection: connection, logger: logger)
            let decision = try SaveResolution.save(id, type: record.recordType, clientTag: pending.changeTag,
                                                   existing: existing, rule: rule)
            switch (decision, existing) {
            case (.conflict(let serverTag), let existing?):
                let server = try await fetchRow(existing.id, connection: connection, logger: logger)
                throw SaveResolution.changed(id, serverTag: serverTag, server: server, client: record)
            case (.update(let mergesServerFields), let existing?):
                if mergesServerFields {
                    fields = SaveResolution.merged(pending.fields, sentKeys: pending.sentKeys,
                                                   server: Self.decodeFields(existing.fields, keys: nil, cache: assetCache))
                }
                try SaveCheck.checkSize(fields)
                try await checkWrite(.update(recordType: record.recordType, creator: existing.createdBy, fields: fields),
                                     context: context, connection: connection, logger: logger)
                try await insertAssets(pending.assets, connection: connection, logger: logger)
                let searchable = try await searchableFields(recordType: record.recordType, connection: connection, logger: logger)
                // The tag read under the row lock is checked again in the UPDATE itself.
                var update = PostgresStatement("UPDATE \(schema).records SET ")
                update.sql += "modified_at = \(update.bind(now)), modified_by = \(update.bind(context.userRecordName)), "
                update.sql += "change_tag = \(update.bind(changeTag)), fields = \(update.bindJSON(FieldsJSON.encode(fields))), "
                update.sql += "search = \(searchVector(Self.searchText(fields, searchable: searchable), &update))"
                update.sql += " WHERE id = \(update.bind(existing.id)) AND change_tag = \(update.bind(existing.changeTag))"
                guard try await connection.execute(update, logger: logger) == 1 else { throw SaveResolution.changedDuringSave(id) }
                written = (existing.id, existing.createdAt, existing.createdBy, false)
                var clear = PostgresStatement("DELETE FROM \(schema).record_assets WHERE record_id = ")
                clear.sql += clear.bind(existing.id)
                _ = try await connection.execute(clear, logger: logger)
                var clearReferences = PostgresStatement("DELETE FROM \(schema).record_references WHERE record_id = ")
                clearReferences.sql += clearReferences.bind(existing.id)
                _ = try await connection.execute(clearReferences, logger: logger)
            case (.insert, _):
                try await checkWrite(.create(recordType: record.recordType, fields: fields), context: context, connection: connection, logger: logger)
                guard let inserted = try await insertRow(pending, fields: fields, changeTag: changeTag, at: now, context: context,
                                                         connection: connection, logger: logger) else { throw SaveResolution.createdConcurrently(id) }
                written = (inserted, now, context.userRecordName, true)
            case (.conflict, nil), (.update, nil):
                throw CloudError(.internalError, "Record \(id.recordName) was resolved against a row it does not have", recordID: id)
            }
        }
        try await writeSideTables(rowID: written.rowID, fields: fields, context: context, connection: connection, logger: logger)
        log.append(zone: id.zoneID.zoneName, name: id.recordName, type: record.recordType, kind: written.isNew ? "created" : "updated", at: now)

        return Record.stored(type: record.recordType, id: id, fields: fields, createdAt: written.createdAt, modifiedAt: now,
                             createdBy: written.createdBy, modifiedBy: context.userRecordName, changeTag: changeTag)
    }

    /// The row of a new record, or `nil` when the rules refuse the create or the record exists.
    private func insertIfNew(_ pending: PendingSave, fields: [String: FieldValue], changeTag: String, at now: Double, context: StoreContext,
                             connection: PostgresConnection, logger: Logger) async throws -> Int64? {
        do {
            try await checkWrite(.create(recordType: pending.record.recordType, fields: fields), context: context, connection: connection, logger: logger)
        } catch is CloudError {
            return nil
        }
        return try await insertRow(pending, fields: fields, changeTag: changeTag, at: now, context: context, connection: connection, logger: logger)
    }

    /// Inserts the record's row with its assets; `nil` when a row of that name exists (another
    /// node may have inserted it at once: its row wins).
    private func insertRow(_ pending: PendingSave, fields: [String: FieldValue], changeTag: String, at now: Double, context: StoreContext,
                           connection: PostgresConnection, logger: Logger) async throws -> Int64? {
        let record = pending.record
        let id = record.recordID
        try await insertAssets(pending.assets, connection: connection, logger: logger)
        let searchable = try await searchableFields(recordType: record.recordType, connection: connection, logger: logger)
        var insert = PostgresStatement("INSERT INTO \(schema).records \(Self.insertColumns) VALUES (")
        insert.sql += [insert.bind(context.scope.rawValue), insert.bind(context.owner), insert.bind(id.zoneID.zoneName),
                       insert.bind(id.recordName), insert.bind(record.recordType), insert.bind(now), insert.bind(now),
                       insert.bind(context.userRecordName), insert.bind(context.userRecordName), insert.bind(changeTag),
                       insert.bindJSON(FieldsJSON.encode(fields))].joined(separator: ", ")
        insert.sql += ", \(searchVector(Self.searchText(fields, searchable: searchable), &insert))"
        insert.sql += ") ON CONFLICT (scope, owner, zone, record_name) DO NOTHING RETURNING id"
        return try await connection.preparedRows(insert, logger: logger).first?.decode(Int64.self)
    }

    /// `to_tsvector` of the text with the schema's `localcloud_search` configuration, NULL for none.
    ///
    /// Two sets of lexemes share the vector: the text as written (weight D, the default), which
    /// `self CONTAINS` reads, and the text with every CJK character a word of its own (weight B,
    /// ``TypedSearchTerms/segmented(_:)``), which search as you type reads, so a run of CJK
    /// characters is found as a phrase anywhere. One GIN index serves both.
    func searchVector(_ text: String?, _ statement: inout PostgresStatement) -> String {
        guard let text else { return "NULL" }
        return searchVector(text: statement.bind(text), segmented: statement.bind(TypedSearchTerms.segmented(text)))
    }

    /// The vector of ``searchVector(_:_:)`` from two SQL expressions: the text and its segmented form.
    func searchVector(text: String, segmented: String) -> String {
        let configuration = "'\(schema).localcloud_search'"
        return "to_tsvector(\(configuration), \(text)) || setweight(to_tsvector(\(configuration), \(segmented)), 'B')"
    }

    /// The columns a new record's row is inserted with, in order.
    static let insertColumns =
        "(scope, owner, zone, record_name, record_type, created_at, modified_at, created_by, modified_by, change_tag, fields, search)"

    /// The text of the record's searchable string fields, `nil` when there is none.
    static func searchText(_ fields: [String: FieldValue], searchable: Set<String>?) -> String? {
        var text: [String] = []
        func collect(_ value: FieldValue) {
            switch value {
            case .string(let s): text.append(s)
            case .list(let items): items.forEach(collect)
            default: break
            }
        }
        for key in fields.keys.sorted() where searchable?.contains(key) ?? true {
            if let value = fields[key] { collect(value) }
        }
        return text.isEmpty ? nil : text.joined(separator: "\n")
    }

    /// The asset-usage and reference rows of a saved record.
    private func writeSideTables(rowID: Int64, fields: [String: FieldValue], context: StoreContext,
                                 connection: PostgresConnection, logger: Logger) async throws {
        var digests: Set<String> = []
        var references: [Record.Reference] = []
        func collect(_ value: FieldValue) {
            switch value {
            case .asset(let a): if let d = a.contentDigest { digests.insert(d) }
            case .reference(let r): references.append(r)
            case .list(let items): items.forEach(collect)
            default: break
            }
        }
        fields.values.forEach(collect)
        if !digests.isEmpty {
            var statement = PostgresStatement("INSERT INTO \(schema).record_assets (record_id, digest) SELECT ")
            statement.sql += "\(statement.bind(rowID)), unnest(\(statement.bind(Array(digests)))) ON CONFLICT DO NOTHING"
            _ = try await connection.execute(statement, logger: logger)
        }
        if !references.isEmpty {
            var statement = PostgresStatement("INSERT INTO \(schema).record_references (record_id, scope, owner, target_zone, target_name, action) SELECT ")
            statement.sql += "\(statement.bind(rowID)), \(statement.bind(context.scope.rawValue)), \(statement.bind(context.owner)), "
            statement.sql += "unnest(\(statement.bind(references.map(\.recordID.zoneID.zoneName)))), "
            statement.sql += "unnest(\(statement.bind(references.map(\.recordID.recordName)))), "
            statement.sql += "unnest(\(statement.bind(references.map { $0.action.rawValue })))"
            _ = try await connection.execute(statement, logger: logger)
        }
    }

    private func fetchRow(_ rowID: Int64, connection: PostgresConnection, logger: Logger) async throws -> Record? {
        var statement = PostgresStatement("SELECT \(Self.recordColumns) FROM \(schema).records r WHERE r.id = ")
        statement.sql += statement.bind(rowID)
        return try await connection.rows(statement, logger: logger).first.map { try record($0, keys: nil) }
    }

    func requireZone(_ zoneID: RecordZone.ID, context: StoreContext, connection: PostgresConnection, logger: Logger) async throws {
        guard zoneID.zoneName != RecordZone.ID.defaultZoneName else { return }
        var statement = PostgresStatement("SELECT 1 FROM \(schema).zones WHERE ")
        statement.sql += "scope = \(statement.bind(context.scope.rawValue)) AND owner = \(statement.bind(context.owner))"
        statement.sql += " AND zone_name = \(statement.bind(zoneID.zoneName))"
        guard try await !connection.rows(statement, logger: logger).isEmpty else {
            throw CloudError(.zoneNotFound, "Zone '\(zoneID.zoneName)' does not exist in the \(context.scope) database")
        }
    }

    // MARK: Delete

    private func delete(_ id: Record.ID, ifChangeTag changeTag: String?, context: StoreContext, log: inout ChangeLogBatch,
                        connection: PostgresConnection, logger: Logger) async throws {
        guard let existing = try await lockedRow(id, context: context, connection: connection, logger: logger) else {
            throw SaveResolution.notFound(id)
        }
        if let serverTag = SaveResolution.deleteConflict(existing: existing, ifChangeTag: changeTag) {
            throw SaveResolution.changed(id, serverTag: serverTag,
                                         server: try await fetchRow(existing.id, connection: connection, logger: logger))
        }
        try await checkWrite(.delete(recordType: existing.recordType, creator: existing.createdBy), context: context,
                             connection: connection, logger: logger)
        try await deleteRow(existing.id, zone: id.zoneID.zoneName, name: id.recordName, type: existing.recordType,
                            context: context, log: &log, connection: connection, logger: logger)
    }

    /// Deletes a row and, following `.deleteSelf` references, every record that points at it.
    func deleteRow(_ rowID: Int64, zone: String, name: String, type: String, context: StoreContext, log: inout ChangeLogBatch,
                   connection: PostgresConnection, logger: Logger) async throws {
        var statement = PostgresStatement("DELETE FROM \(schema).records WHERE id = ")
        statement.sql += statement.bind(rowID)
        // The parent it had goes to the log (see ChangeLogBatch).
        statement.sql += " RETURNING fields -> \(statement.bind(Record.parentKey)) ->> 'v'"
        // A reference cycle may already have removed it.
        guard let deleted = try await connection.rows(statement, logger: logger).first else { return }
        let parent = try deleted.decode(String?.self)
        log.append(zone: zone, name: name, type: type, kind: "deleted", at: self.clock.now.timeIntervalSince1970, parent: parent ?? "")
        var referrers = PostgresStatement("""
            SELECT DISTINCT r.id, r.zone, r.record_name, r.record_type FROM \(schema).record_references ref
            JOIN \(schema).records r ON r.id = ref.record_id WHERE
            """)
        referrers.sql += " ref.scope = \(referrers.bind(context.scope.rawValue)) AND ref.owner = \(referrers.bind(context.owner))"
        referrers.sql += " AND ref.target_zone = \(referrers.bind(zone)) AND ref.target_name = \(referrers.bind(name)) AND ref.action = 1"
        for row in try await connection.rows(referrers, logger: logger) {
            let (referrerID, referrerZone, referrerName, referrerType) = try row.decode((Int64, String, String, String).self)
            try await deleteRow(referrerID, zone: referrerZone, name: referrerName, type: referrerType, context: context, log: &log,
                                connection: connection, logger: logger)
        }
    }
}
