import Foundation
@testable import LocalCloudPostgres
import PostgresNIO
import PostgresTestSupport
import Testing

/// Statements prepared once per connection (``PreparedStatementNames``): named per SQL text and
/// parameter types, bounded, and never left failing on a connection after PostgreSQL refused one.
@Suite(.enabled(if: !PostgresCluster.isSkipped, "LOCALCLOUD_SKIP_POSTGRES=1"))
struct PreparedStatementTests {
    @Test func namesAreKeptPerTextAndTypesBoundedAndRetiredForANewOne() {
        let names = PreparedStatementNames(limit: 2)
        let a = PreparedStatementNames.Key(sql: "SELECT $1", types: [PostgresDataType.int8.rawValue])
        let b = PreparedStatementNames.Key(sql: "SELECT $1", types: [PostgresDataType.text.rawValue])
        let c = PreparedStatementNames.Key(sql: "SELECT 2", types: [])
        let first = names.name(for: a)
        #expect(first != nil)
        #expect(names.name(for: a) == first)
        #expect(names.name(for: b) != nil)
        #expect(names.name(for: b) != first)
        #expect(names.name(for: c) == nil, "past the limit a statement runs unnamed")
        names.retire(a)
        let again = names.name(for: a)
        #expect(again != nil && again != first)
        #expect(names.name(for: c) == nil)
    }

    @Test func oneTextWithValuesOfDifferentTypesRunsUnderDifferentNames() async throws {
        let fixture = try await PostgresFixture()
        let pool = PostgresPool(url: fixture.url, maximumConnections: 1)
        defer { pool.close() }
        let names = PreparedStatementNames(limit: 8)
        func isNull(_ bind: (inout PostgresStatement) -> String) async throws -> Bool {
            var statement = PostgresStatement("SELECT ")
            statement.sql += bind(&statement) + "::text IS NULL"
            let prepared = statement
            return try await pool.withConnection { connection in
                try await connection.preparedRows(prepared, logger: pool.logger, names: names)[0].decode(Bool.self)
            }
        }
        #expect(try await isNull { $0.bind(Int64(5)) } == false)
        #expect(try await isNull { $0.bindNull() } == true)
        #expect(try await isNull { $0.bind("five") } == false)
        #expect(try await isNull { $0.bind(Int64(6)) } == false)
    }

    @Test func aStatementRefusedInAnAbortedTransactionRunsOnTheSameConnectionAfterwards() async throws {
        let fixture = try await PostgresFixture()
        let pool = PostgresPool(url: fixture.url, maximumConnections: 1)
        defer { pool.close() }
        let names = PreparedStatementNames(limit: 8)
        var statement = PostgresStatement("SELECT ")
        statement.sql += statement.bind(Int64(41)) + " + 1"
        let plusOne = statement
        let logger = pool.logger
        let value = try await pool.withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            await #expect(throws: (any Error).self) { try await connection.query("SELECT 1 / 0", logger: logger) }
            // Its first preparation is refused: the transaction is aborted.
            await #expect(throws: (any Error).self) { try await connection.preparedRows(plusOne, logger: logger, names: names) }
            try await connection.query("ROLLBACK", logger: logger)
            return try await connection.preparedRows(plusOne, logger: logger, names: names)[0].decode(Int64.self)
        }
        #expect(value == 42)
    }

    @Test func aTableMadeAgainWithAnotherColumnTypeIsReadAfterOneRefusal() async throws {
        let fixture = try await PostgresFixture()
        let pool = PostgresPool(url: fixture.url, maximumConnections: 1)
        defer { pool.close() }
        let names = PreparedStatementNames(limit: 8)
        let logger = pool.logger
        let read = PostgresStatement("SELECT x FROM prepared_probe")
        let (before, after) = try await pool.withConnection { connection in
            try await connection.query("CREATE TABLE prepared_probe (x bigint)", logger: logger)
            try await connection.query("INSERT INTO prepared_probe VALUES (7)", logger: logger)
            let before = try await connection.preparedRows(read, logger: logger, names: names).map { try $0.decode(Int64.self) }
            try await connection.query("DROP TABLE prepared_probe", logger: logger)
            try await connection.query("CREATE TABLE prepared_probe (x text)", logger: logger)
            try await connection.query("INSERT INTO prepared_probe VALUES ('seven')", logger: logger)
            // PostgreSQL refuses the statement prepared for a bigint column ("cached plan must not change result type").
            await #expect(throws: (any Error).self) { try await connection.preparedRows(read, logger: logger, names: names) }
            let after = try await connection.preparedRows(read, logger: logger, names: names).map { try $0.decode(String.self) }
            return (before, after)
        }
        #expect(before == [7])
        #expect(after == ["seven"])
    }
}
