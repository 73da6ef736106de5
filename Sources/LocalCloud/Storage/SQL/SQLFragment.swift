import Foundation

/// SQL text with `?` where each of its values goes, in order.
///
/// ```swift
/// let test = SQLFragment("r.record_name = ?", [.text("r1")])
/// ```
///
/// Values are only ever bound. An engine with numbered placeholders renders the `?`s as `$n`
/// (``numberedSQL(after:)``); the text never holds a `?` of its own outside a quoted literal.
package struct SQLFragment {
    package var sql: String
    package var arguments: [SQLValue]

    package init(_ sql: String, _ arguments: [SQLValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }

    package static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
        SQLFragment(lhs.sql + rhs.sql, lhs.arguments + rhs.arguments)
    }

    package static func += (lhs: inout SQLFragment, rhs: SQLFragment) {
        lhs.sql += rhs.sql
        lhs.arguments += rhs.arguments
    }

    package static func joined(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        SQLFragment(parts.map(\.sql).joined(separator: separator), parts.flatMap(\.arguments))
    }

    /// `count` placeholders separated by commas: `?, ?, ?`.
    package static func placeholders(_ count: Int) -> String {
        count == 0 ? "" : String(repeating: "?, ", count: count - 1) + "?"
    }

    /// The text with its `?`s as `$(count + 1)`, `$(count + 2)`… (a JSON value cast to `jsonb`,
    /// a real to `float8`), for a statement that already binds `count` values; quoted literals
    /// are left as they are.
    package func numberedSQL(after count: Int) -> String {
        // Bytes, not Characters: `?` and `'` are ASCII and never part of a longer UTF-8 sequence,
        // and walking grapheme clusters cost a few percent of a PostgreSQL page.
        var out: [UInt8] = []
        out.reserveCapacity(sql.utf8.count + arguments.count * 8)
        var index = 0
        var quoted = false
        for byte in sql.utf8 {
            if byte == UInt8(ascii: "'") { quoted.toggle() }
            guard byte == UInt8(ascii: "?"), !quoted, index < arguments.count else {
                out.append(byte)
                continue
            }
            index += 1
            out.append(contentsOf: "$\(count + index)".utf8)
            switch arguments[index - 1] {
            case .json: out.append(contentsOf: "::jsonb".utf8)
            case .real: out.append(contentsOf: "::float8".utf8)
            default: break
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
