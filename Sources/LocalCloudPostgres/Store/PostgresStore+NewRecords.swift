import LocalCloud
import PostgresNIO

extension PostgresStore {
    /// A modify that is one create of a record with nothing beside its row (no asset, no
    /// reference, the default zone, no schema change): the batch inserts it with the other such
    /// modifies in one statement (``insertNewRecords(_:)``).
    struct NewRecord: Sendable {
        let context: StoreContext
        let record: Record
        let fields: [String: FieldValue]
        let searchText: String?
        /// Keeps the modify's result: the saved record.
        let finish: @Sendable (Record) -> Void
    }

    /// The modify as a ``NewRecord``, or `nil` when it needs the general path: anything but one
    /// save of a new record, a record with assets or references, another zone, a save the rules
    /// refuse or one that evolves the schema. The rules are decided on the schema a save in the
    /// transaction would read too (``currentSchema()``, current as of the last commit heard).
    func newRecord(_ items: [ModifyItem], prepared: [Result<PendingSave, CloudError>?], context: StoreContext,
                   finish: @escaping @Sendable (Record) -> Void) async -> NewRecord? {
        guard items.count == 1, case .save(let record, _) = items[0], case .success(let pending)? = prepared.first,
              pending.changeTag == nil, pending.assets.isEmpty,
              record.recordID.zoneID.zoneName == RecordZone.ID.defaultZoneName,
              !pending.fields.values.contains(where: Self.needsSideTable) else { return nil }
        let create = AccessRequest.create(recordType: record.recordType, fields: pending.fields)
        do {
            let needsSchema = access.needsSchema(create, context: context) || access.searchNeedsSchema
            let schema = needsSchema ? try await currentSchema() : Schema()
            guard try access.decide(create, schema: schema, context: context) == nil else { return nil }
            let searchable = access.searchableFields(recordType: record.recordType, schema: schema)
            return NewRecord(context: context, record: record, fields: pending.fields,
                             searchText: Self.searchText(pending.fields, searchable: searchable), finish: finish)
        } catch {
            return nil
        }
    }

    /// Whether a saved value writes a row beside the record's (``writeSideTables``).
    private static func needsSideTable(_ value: FieldValue) -> Bool {
        switch value {
        case .asset, .reference: true
        case .list(let items): items.contains(where: needsSideTable)
        default: false
        }
    }

    /// The batch's new records in one statement outside a transaction: their rows, their
    /// change-log rows under the log lock and the NOTIFY, committed together as one statement
    /// commits. One round trip for the batch where the general path takes BEGIN, an INSERT per
    /// record, the log and COMMIT.
    ///
    /// - Returns: the jobs still to run in a transaction: those that are not a ``NewRecord``,
    ///   a second create of a name already in the batch, a record whose name exists (the general
    ///   path decides between conflict and update), and all of them when the statement failed
    ///   (nothing was written, and one bad row must not fail the others).
    func insertNewRecords(_ jobs: [WriteJob]) async -> [WriteJob] {
        var rest: [WriteJob] = []
        var creates: [(job: WriteJob, record: NewRecord)] = []
        var names = Set<[String]>()
        for job in jobs {
            if let new = job.newRecord,
               names.insert(["\(new.context.scope.rawValue)", new.context.owner, new.record.recordID.recordName]).inserted {
                creates.append((job, new))
            } else {
                rest.append(job)
            }
        }
        guard !creates.isEmpty else { return rest }
        let now = clock.now.timeIntervalSince1970
        let tags = creates.map { _ in Self.newChangeTag() }
        let fieldsJSON = creates.map { FieldsJSON.encode($0.record.fields) }
        var statement = PostgresStatement("WITH sent AS (SELECT * FROM unnest(")
        statement.sql += [
            statement.bind(creates.map { $0.record.context.scope.rawValue }),
            statement.bind(creates.map { $0.record.context.owner }),
            statement.bind(creates.map { $0.record.record.recordID.recordName }),
            statement.bind(creates.map { $0.record.record.recordType }),
            statement.bind(creates.map { $0.record.context.userRecordName }),
            statement.bind(tags),
            statement.bind(fieldsJSON),
            statement.bind(creates.map { $0.record.searchText != nil }),
            statement.bind(creates.map { $0.record.searchText ?? "" }),
            statement.bind(creates.map { TypedSearchTerms.segmented($0.record.searchText ?? "") }),
        ].joined(separator: ", ")
        statement.sql += ") WITH ORDINALITY AS t(scope, owner, name, type, usr, tag, fields, has_text, text, segmented, n)), "
        let zone = statement.bind(RecordZone.ID.defaultZoneName)
        let at = statement.bind(now)
        statement.sql += "created AS (INSERT INTO \(schema).records \(Self.insertColumns) "
        statement.sql += "SELECT scope, owner, \(zone), name, type, \(at), \(at), usr, usr, tag, fields::jsonb, "
        statement.sql += "CASE WHEN has_text THEN \(searchVector(text: "text", segmented: "segmented")) END "
        statement.sql += "FROM sent ORDER BY n ON CONFLICT (scope, owner, zone, record_name) DO NOTHING "
        statement.sql += "RETURNING scope, owner, record_name), "
        statement.sql += "to_log AS (SELECT s.scope, s.owner, \(zone) AS zone, s.name, s.type, 'created' AS kind, \(at) AS at, "
        statement.sql += "s.usr AS modified_by, '' AS parent, s.n FROM created c JOIN sent s "
        statement.sql += "ON s.scope = c.scope AND s.owner = c.owner AND s.name = c.record_name), "
        ChangeLogBatch.appendLogging(to: &statement, schema: schema)
        statement.sql += " SELECT t.n FROM to_log t, notified"
        let insert = statement
        let inserted: Set<Int64>
        do {
            inserted = try await call { pool in
                try await pool.withConnection { connection in
                    Set(try await connection.preparedRows(insert, logger: pool.logger).map { try $0.decode(Int64.self) })
                }
            }
        } catch {
            return jobs
        }
        if !inserted.isEmpty { committed() }
        for (index, create) in creates.enumerated() {
            guard inserted.contains(Int64(index + 1)) else {
                rest.append(create.job)
                continue
            }
            let new = create.record
            new.finish(Record.stored(type: new.record.recordType, id: new.record.recordID, fields: new.fields, createdAt: now,
                                     modifiedAt: now, createdBy: new.context.userRecordName, modifiedBy: new.context.userRecordName,
                                     changeTag: tags[index]))
        }
        return rest
    }
}
