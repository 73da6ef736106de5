import PostgresNIO

/// SQL text and its bound values, built in order: ``bind(_:)`` appends a value and returns its `$n`.
///
/// ```swift
/// var statement = PostgresStatement("SELECT id FROM records WHERE record_name = ")
/// statement.sql += statement.bind("r1")
/// ```
///
/// Values are only ever bound; names written into the text are validated identifiers.
package struct PostgresStatement: Sendable {
    package var sql: String
    package var binds = PostgresBindings()
    /// The type of each bound value (`.null` for NULL, which PostgreSQL infers), the other half
    /// of a prepared statement's identity (``PreparedStatementNames``).
    package var types: [PostgresDataType] = []

    package init(_ sql: String = "") {
        self.sql = sql
    }

    /// Appends `value` to the bindings and returns its placeholder.
    package mutating func bind(_ value: some PostgresDynamicTypeEncodable) -> String {
        binds.append(value)
        types.append(value.psqlType)
        return "$\(binds.count)"
    }

    /// A JSON text bound as `jsonb`.
    package mutating func bindJSON(_ json: String) -> String {
        bind(json) + "::jsonb"
    }

    /// An optional value: NULL when `nil`.
    package mutating func bind<Value: PostgresDynamicTypeEncodable>(_ value: Value?) -> String {
        binds.append(value)
        types.append(value?.psqlType ?? .null)
        return "$\(binds.count)"
    }

    package mutating func bindNull() -> String {
        binds.appendNull()
        types.append(.null)
        return "$\(binds.count)"
    }

    package var query: PostgresQuery { PostgresQuery(unsafeSQL: sql, binds: binds) }
}

extension PostgresConnection {
    /// Every row of `statement`.
    func rows(_ statement: PostgresStatement, logger: Logger) async throws -> [PostgresRow] {
        try await query(statement.query, logger: logger).collect()
    }

    /// The rows `statement` changed (from its command tag), for conditional UPDATEs and INSERTs.
    func execute(_ statement: PostgresStatement, logger: Logger) async throws -> Int {
        // The future-returning overload: its result carries the command tag's row count.
        let result: EventLoopFuture<PostgresQueryResult> = query(statement.query, logger: logger)
        return try await result.get().metadata.rows ?? 0
    }
}
