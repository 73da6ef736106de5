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
        var out = ""
        out.reserveCapacity(sql.utf8.count + arguments.count * 8)
        var index = 0
        var quoted = false
        for character in sql {
            if character == "'" { quoted.toggle() }
            guard character == "?", !quoted, index < arguments.count else {
                out.append(character)
                continue
            }
            index += 1
            out += "$\(count + index)"
            switch arguments[index - 1] {
            case .json: out += "::jsonb"
            case .real: out += "::float8"
            default: break
            }
        }
        return out
    }
}
