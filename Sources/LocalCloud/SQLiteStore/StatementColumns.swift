import GRDB
import GRDBSQLite

/// The current row of a statement being stepped, read through SQLite's C API.
///
/// GRDB's `Row` subscripts are generic and reach this module unspecialized: every read looked
/// up type metadata and retained the row. A query page reads ten columns for each of 50 rows.
/// Valid only until the statement steps again.
struct StatementColumns {
    private let statement: SQLiteStatement

    init(_ statement: Statement) {
        self.statement = statement.sqliteStatement
    }

    func string(_ column: Int32) -> String? {
        withText(column) { String(decoding: $0, as: UTF8.self) }
    }

    func double(_ column: Int32) -> Double {
        sqlite3_column_double(statement, column)
    }

    /// Runs `body` on the column's text in place (no copy); `nil` for SQL NULL.
    func withText<T>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T? {
        // The text pointer first, then its length: SQLite's documented order.
        guard let text = sqlite3_column_text(statement, column) else { return nil }
        return body(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, column))))
    }
}
