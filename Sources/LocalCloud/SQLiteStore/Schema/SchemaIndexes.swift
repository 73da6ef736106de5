import Foundation
import GRDB

/// The SQL indexes that back the schema's QUERYABLE, SORTABLE and SEARCHABLE flags.
///
/// - Queryable or sortable scalar fields: an expression index on
///   `(scope, owner, zone, record_type, json_extract(fields, '$."f".v'))`, the exact expression
///   the query compiler filters and sorts on, so a filter is a range scan and a sort needs no temp B-tree.
///   A queryable one of a type whose creation date is SORTABLE also gets `(…, field, created_at)`,
///   so `field == x` newest first is a range scan too.
/// - `modifiedTimestamp`, `createdBy`, `modifiedBy`: indexes on their columns. `recordName` and
///   `createdTimestamp` are covered by the store's own unique key and Discover index.
/// - Queryable locations: an R-tree of points per field, kept by triggers, that a distance
///   query uses to look only inside the bounding box of its circle.
/// - Queryable lists: a side table of `(value, id)` per field, one row per distinct element,
///   kept by triggers, so `CONTAINS`, `ANY … IN`, `ALL … IN` and `ANY … BEGINSWITH` seek the
///   element instead of walking every record's list.
/// - Searchable: the store's FTS5 table.
///
/// Indexes are created with `CREATE INDEX`, which builds them for the records already there.
enum SchemaIndexes {
    static let prefix = "lc_ix_"
    static let rtreePrefix = "lc_rtree_"
    static let listPrefix = "lc_list_"

    struct Definition: Hashable {
        var name: String
        var sql: [String]
    }

    static func fieldIndexName(_ field: String) -> String { prefix + "f_" + field }
    static func rtreeName(_ field: String) -> String { rtreePrefix + field }
    static func listTableName(_ field: String) -> String { listPrefix + field }

    /// Every index the schema calls for, by name.
    static func definitions(for schema: Schema) -> [String: Definition] {
        var result: [String: Definition] = [:]
        for type in schema.recordTypes.values {
            for field in type.fields {
                if let system = SystemField(storedName: field.name) {
                    guard let column = systemColumn(system), field.isQueryable || field.isSortable else { continue }
                    let name = prefix + "s_" + column
                    result[name] = Definition(name: name, sql: [
                        "CREATE INDEX IF NOT EXISTS \(name) ON records (scope, owner, zone, record_type, \(column))",
                    ])
                    continue
                }
                guard FieldName.isValid(field.name) else { continue }
                if field.type == .location {
                    if field.isQueryable {
                        let name = rtreeName(field.name)
                        result[name] = Definition(name: name, sql: rtreeSQL(field: field.name))
                    }
                    continue
                }
                if field.type.isList {
                    if field.isQueryable {
                        let name = listTableName(field.name)
                        result[name] = Definition(name: name, sql: listTableSQL(field: field.name))
                    }
                    continue
                }
                guard field.isQueryable || field.isSortable else { continue }
                let name = fieldIndexName(field.name)
                result[name] = Definition(name: name, sql: [
                    "CREATE INDEX IF NOT EXISTS \(name) ON records (scope, owner, zone, record_type, json_extract(fields, '\(FieldName.valuePath(field.name))'))",
                ])
                // `field == x` sorted by creationDate: without this, SQLite walks the Discover index
                // and tests every record of the type (a rare value scans them all).
                if field.isQueryable && type.system(.createTime).isSortable {
                    let byDate = prefix + "fc_" + field.name
                    result[byDate] = Definition(name: byDate, sql: [
                        "CREATE INDEX IF NOT EXISTS \(byDate) ON records (scope, owner, zone, record_type, json_extract(fields, '\(FieldName.valuePath(field.name))'), created_at)",
                    ])
                }
            }
        }
        return result
    }

    /// The system columns that need an index of their own.
    static func systemColumn(_ field: SystemField) -> String? {
        switch field {
        case .modTime: "modified_at"
        case .createdBy: "created_by"
        case .modifiedBy: "modified_by"
        case .recordID, .createTime, .etag: nil
        }
    }

    /// An R-tree of one location field's points, filled from existing records and kept by triggers.
    static func rtreeSQL(field: String) -> [String] {
        let table = rtreeName(field)
        let lat = "json_extract(NEW.fields, '$.\"\(field)\".v[0]')"
        let lon = "json_extract(NEW.fields, '$.\"\(field)\".v[1]')"
        let isPoint = "json_extract(NEW.fields, '$.\"\(field)\".t') = 'location'"
        return [
            "CREATE VIRTUAL TABLE IF NOT EXISTS \(table) USING rtree(id, min_lat, max_lat, min_lon, max_lon)",
            """
            INSERT OR REPLACE INTO \(table) (id, min_lat, max_lat, min_lon, max_lon)
            SELECT id, json_extract(fields, '$."\(field)".v[0]'), json_extract(fields, '$."\(field)".v[0]'),
                   json_extract(fields, '$."\(field)".v[1]'), json_extract(fields, '$."\(field)".v[1]')
            FROM records WHERE json_extract(fields, '$."\(field)".t') = 'location'
            """,
            """
            CREATE TRIGGER IF NOT EXISTS \(table)_insert AFTER INSERT ON records WHEN \(isPoint) BEGIN
                INSERT OR REPLACE INTO \(table) (id, min_lat, max_lat, min_lon, max_lon) VALUES (NEW.id, \(lat), \(lat), \(lon), \(lon));
            END
            """,
            """
            CREATE TRIGGER IF NOT EXISTS \(table)_update AFTER UPDATE OF fields ON records BEGIN
                DELETE FROM \(table) WHERE id = OLD.id;
                INSERT INTO \(table) (id, min_lat, max_lat, min_lon, max_lon)
                SELECT NEW.id, \(lat), \(lat), \(lon), \(lon) WHERE \(isPoint);
            END
            """,
            """
            CREATE TRIGGER IF NOT EXISTS \(table)_delete AFTER DELETE ON records BEGIN
                DELETE FROM \(table) WHERE id = OLD.id;
            END
            """,
        ]
    }

    /// A side table of one list field's elements, filled from existing records and kept by triggers.
    ///
    /// Keyed `(value, id)` without a row ID, so a lookup by element is a seek; a second index by
    /// `id` lets the triggers drop a record's rows. A record of any type with a list under this
    /// name is indexed: the query joins back to `records`, which filters the type.
    static func listTableSQL(field: String) -> [String] {
        let table = listTableName(field)
        let path = FieldName.valuePath(field)
        let insertElements = """
            INSERT OR IGNORE INTO \(table) (value, id)
                SELECT value, NEW.id FROM json_each(NEW.fields, '\(path)')
                WHERE json_extract(NEW.fields, '$."\(field)".t') = 'list' AND value IS NOT NULL;
            """
        return [
            "CREATE TABLE IF NOT EXISTS \(table) (value NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (value, id)) WITHOUT ROWID",
            "CREATE INDEX IF NOT EXISTS lc_listid_\(field) ON \(table) (id)",
            """
            INSERT OR IGNORE INTO \(table) (value, id)
            SELECT e.value, r.id FROM records r, json_each(r.fields, '\(path)') e
            WHERE json_extract(r.fields, '$."\(field)".t') = 'list' AND e.value IS NOT NULL
            """,
            """
            CREATE TRIGGER IF NOT EXISTS \(table)_insert AFTER INSERT ON records BEGIN
            \(insertElements)
            END
            """,
            """
            CREATE TRIGGER IF NOT EXISTS \(table)_update AFTER UPDATE OF fields ON records BEGIN
                DELETE FROM \(table) WHERE id = OLD.id;
            \(insertElements)
            END
            """,
            """
            CREATE TRIGGER IF NOT EXISTS \(table)_delete AFTER DELETE ON records BEGIN
                DELETE FROM \(table) WHERE id = OLD.id;
            END
            """,
        ]
    }

    /// Creates the indexes the schema calls for that are missing, and drops the ones it no longer wants.
    static func synchronize(with schema: Schema, _ db: GRDB.Database) throws {
        let wanted = definitions(for: schema)
        let existingIndexes = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'lc\\_ix\\_%' ESCAPE '\\'")
        let existingTrees = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'lc\\_rtree\\_%' ESCAPE '\\' AND sql LIKE 'CREATE VIRTUAL TABLE%'")
        let existingLists = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'lc\\_list\\_%' ESCAPE '\\'")
        for name in existingIndexes where wanted[name] == nil {
            try db.execute(sql: "DROP INDEX IF EXISTS \(name)")
        }
        for name in existingTrees + existingLists where wanted[name] == nil {
            for suffix in ["_insert", "_update", "_delete"] {
                try db.execute(sql: "DROP TRIGGER IF EXISTS \(name)\(suffix)")
            }
            try db.execute(sql: "DROP TABLE IF EXISTS \(name)")
        }
        let present = Set(existingIndexes + existingTrees + existingLists)
        for (name, definition) in wanted.sorted(by: { $0.key < $1.key }) where !present.contains(name) {
            for statement in definition.sql { try db.execute(sql: statement) }
        }
    }

    /// Whether an R-tree exists for a location field; the query compiler asks before using it.
    static func hasRTree(field: String, _ db: GRDB.Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [rtreeName(field)]) ?? false
    }
}

extension SchemaIndexes {
    /// The list fields that have a side table of their elements.
    static func listIndexes(_ db: GRDB.Database) throws -> Set<String> {
        let names = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'lc\\_list\\_%' ESCAPE '\\'")
        return Set(names.map { String($0.dropFirst(listPrefix.count)) })
    }

    /// The names of the scalar fields' expression indexes (`lc_ix_f_…` and `lc_ix_fc_…`).
    static func fieldIndexNames(_ db: GRDB.Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'lc\\_ix\\_f%' ESCAPE '\\'"))
    }

    /// The location fields that have an R-tree.
    static func locationIndexes(_ db: GRDB.Database) throws -> Set<String> {
        let names = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'lc\\_rtree\\_%' ESCAPE '\\' AND sql LIKE 'CREATE VIRTUAL TABLE%'")
        return Set(names.map { String($0.dropFirst(rtreePrefix.count)) })
    }
}

extension PredicateNode {
    /// Whether a list match (`CONTAINS`, `ANY … IN`, `ALL … IN`, `ANY … BEGINSWITH`) appears anywhere in the predicate.
    var hasListMatch: Bool {
        switch self {
        case .listContains, .listContainsAny, .listContainsAll, .listMemberBeginsWith: true
        case .and(let nodes): nodes.contains { $0.hasListMatch }
        case .not(let inner): inner.hasListMatch
        default: false
        }
    }

    /// Whether a distance filter appears anywhere in the predicate.
    var hasDistance: Bool {
        switch self {
        case .distance: true
        case .and(let nodes): nodes.contains { $0.hasDistance }
        case .not(let inner): inner.hasDistance
        default: false
        }
    }
}

extension SchemaIndexes {
    /// Refills the full-text rows of one type's records from its SEARCHABLE fields, so adding
    /// (or removing) a searchable index takes effect for the records already stored.
    static func rebuildSearch(for type: RecordTypeSchema, _ db: GRDB.Database) throws {
        try db.execute(sql: "DELETE FROM records_fts WHERE rowid IN (SELECT id FROM records WHERE record_type = ?)", arguments: [type.name])
        let parts = type.fields.filter { $0.isSearchable && FieldName.isValid($0.name) }.map { field in
            let path = FieldName.valuePath(field.name)
            return field.type.isList
                ? "coalesce((SELECT group_concat(value, char(10)) FROM json_each(fields, '\(path)')), '')"
                : "coalesce(json_extract(fields, '\(path)'), '')"
        }
        guard !parts.isEmpty else { return }
        try db.execute(sql: """
            INSERT INTO records_fts (rowid, body, segmented)
            SELECT id, body, localcloud_segmented(body) FROM (SELECT id, \(parts.joined(separator: " || char(10) || ")) AS body FROM records WHERE record_type = ?)
            WHERE trim(body, char(10)) <> ''
            """, arguments: [type.name])
    }
}
