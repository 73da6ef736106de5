import PostgresNIO
import Synchronization

/// The names of the statements a node prepares on its connections, one per SQL text and
/// parameter types, so PostgreSQL parses and plans a hot query once per connection rather than
/// on every call.
///
/// Bounded: each name is a prepared statement in every backend that ran it, and postgres-nio never
/// deallocates one, so past ``limit`` texts a statement runs unnamed as before.
final class PreparedStatementNames: Sendable {
    static let shared = PreparedStatementNames(limit: 256)

    struct Key: Hashable, Sendable {
        var sql: String
        var types: [UInt32]
    }

    private struct State {
        var names: [Key: String] = [:]
        var issued = 0
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// The name `key` runs under, or nil once ``limit`` texts have names.
    func name(for key: Key) -> String? {
        state.withLock { state in
            if let name = state.names[key] { return name }
            guard state.names.count < limit else { return nil }
            state.issued += 1
            let name = "localcloud_\(state.issued)"
            state.names[key] = name
            return name
        }
    }

    /// Gives `key` a new name next time. postgres-nio keeps a failed preparation as failed on its
    /// connection for good, so a statement PostgreSQL refused once (a table dropped and made
    /// again, a transaction already aborted) would fail there on every later call under that name.
    func retire(_ key: Key) {
        state.withLock { state in _ = state.names.removeValue(forKey: key) }
    }
}

/// A statement postgres-nio prepares on a connection the first time that connection runs it.
///
/// postgres-nio's `PostgresPreparedStatement` takes the name and SQL as static members, made for
/// SQL written in the source. Compiled queries are values, so the two are read from a task-local
/// bound around `execute` (``PostgresConnection/preparedRows(_:logger:)``), which reads them
/// while the binding is in force.
private struct NamedStatement: PostgresPreparedStatement {
    struct Text: Sendable {
        var name: String
        var sql: String
    }

    @TaskLocal static var text = Text(name: "", sql: "")

    static var name: String { text.name }
    static var sql: String { text.sql }

    typealias Row = PostgresRow
    let binds: PostgresBindings

    func makeBindings() -> PostgresBindings { binds }
    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
}

extension PostgresConnection {
    /// Every row of `statement`, prepared once on this connection under a name
    /// (``PreparedStatementNames``): for hot statements whose plan does not depend on their values.
    ///
    /// When PostgreSQL refuses the statement, its name is retired, so a preparation refused once
    /// (inside an already aborted transaction, say) is not refused for good on this connection.
    func preparedRows(_ statement: PostgresStatement, logger: Logger,
                      names: PreparedStatementNames = .shared) async throws -> [PostgresRow] {
        let key = PreparedStatementNames.Key(sql: statement.sql, types: statement.types.map(\.rawValue))
        guard let name = names.name(for: key) else { return try await rows(statement, logger: logger) }
        do {
            return try await NamedStatement.$text.withValue(NamedStatement.Text(name: name, sql: statement.sql)) {
                var rows: [PostgresRow] = []
                for try await row in try await execute(NamedStatement(binds: statement.binds), logger: logger) {
                    rows.append(row)
                }
                return rows
            }
        } catch let error as PSQLError where error.code == .server {
            names.retire(key)
            throw error
        }
    }
}
