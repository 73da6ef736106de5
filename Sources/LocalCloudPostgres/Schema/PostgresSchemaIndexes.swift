import LocalCloud
import PostgresNIO

/// The expression indexes a schema's index flags call for, with the same meaning as the SQLite
/// store's (`SchemaIndexes`), created and dropped in the transaction that changes the schema.
///
/// - a QUERYABLE or SORTABLE scalar field: a B-tree on `(…, record_type, fields -> 'f' -> 'v' NULLS FIRST)`,
///   which equality, ranges, prefixes and ORDER BY on the field use;
/// - with QUERYABLE and a sortable creation date, also `(…, f, created_at)`, so `f == x` newest
///   first reads one range instead of the whole type;
/// - a QUERYABLE location: a B-tree on its latitude (`coordinate(…, 0)`), which a radius query
///   reads as a band before testing longitude and the exact distance;
/// - a QUERYABLE list: a GIN index on the list (`jsonb_path_ops`), which `CONTAINS`/`ANY … IN` use;
/// - QUERYABLE or SORTABLE modification date or creator: a B-tree on that column.
enum PostgresSchemaIndexes {
    /// Every index this type manages starts with this, so synchronizing never touches others.
    static let prefix = "lcx_"

    /// Index name → its `CREATE INDEX` statement.
    static func definitions(for schema: Schema, in s: String) -> [String: String] {
        var result: [String: String] = [:]
        let head = "scope, owner, zone, record_type"
        for type in schema.recordTypes.values {
            for field in type.fields {
                let indexed = field.isQueryable || field.isSortable
                switch field.name {
                case "___modTime", "___createdBy", "___modifiedBy":
                    guard indexed else { continue }
                    let column = field.name == "___modTime" ? "modified_at" : field.name == "___createdBy" ? "created_by" : "modified_by"
                    result[prefix + "s_" + column] = "CREATE INDEX \(prefix)s_\(column) ON \(s).records (\(head), \(column))"
                    continue
                default:
                    break
                }
                guard !field.name.hasPrefix("___"), FieldName.isValid(field.name) else { continue }
                let value = "(fields -> '\(field.name)' -> 'v')"
                let name = indexName(field.name)
                if field.type == .location {
                    guard field.isQueryable else { continue }
                    result[name + "_lat"] = "CREATE INDEX \(name)_lat ON \(s).records (\(head), \(s).coordinate(fields -> '\(field.name)' -> 'v', 0))"
                } else if field.type.isList {
                    guard field.isQueryable else { continue }
                    result[name + "_gin"] = "CREATE INDEX \(name)_gin ON \(s).records USING gin (\(value) jsonb_path_ops)"
                } else if indexed {
                    // NULLS FIRST: the order queries sort in (a missing field first ascending, last
                    // descending, as in SQLite), read forwards or backwards.
                    result[name] = "CREATE INDEX \(name) ON \(s).records (\(head), \(value) NULLS FIRST)"
                    if field.isQueryable && type.system(.createTime).isSortable {
                        result[name + "_c"] = "CREATE INDEX \(name)_c ON \(s).records (\(head), \(value) NULLS FIRST, created_at)"
                    }
                }
            }
        }
        return result
    }

    /// `lcx_f_<field>`, cut to fit PostgreSQL's 63-byte names with a hash of the whole name.
    static func indexName(_ field: String) -> String {
        let name = prefix + "f_" + field.lowercased()
        guard name.utf8.count > 52 || field.lowercased() != field else { return name }
        var hash: UInt32 = 2166136261
        for byte in field.utf8 { hash = (hash ^ UInt32(byte)) &* 16777619 }
        return String(name.prefix(40)) + "_" + String(hash, radix: 16)
    }

    /// Creates the indexes the schema calls for and drops those it no longer does.
    static func synchronize(with schema: Schema, in s: String, connection: PostgresConnection, logger: Logger) async throws {
        let wanted = definitions(for: schema, in: s)
        var existingQuery = PostgresStatement("SELECT indexname FROM pg_indexes WHERE schemaname = ")
        existingQuery.sql += "\(existingQuery.bind(s)) AND indexname LIKE 'lcx\\_%'"
        let existing = Set(try await connection.rows(existingQuery, logger: logger).map { try $0.decode(String.self) })
        for name in existing.subtracting(wanted.keys).sorted() {
            _ = try await connection.rows(PostgresStatement("DROP INDEX \(s).\(name)"), logger: logger)
        }
        for (name, sql) in wanted.sorted(by: { $0.key < $1.key }) where !existing.contains(name) {
            _ = try await connection.rows(PostgresStatement(sql), logger: logger)
        }
    }
}
