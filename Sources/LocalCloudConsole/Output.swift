import Foundation
import LocalCloudCLI

/// Writing results: plain text for people, JSON with `--json` for scripts.
enum Output {
    static func line(_ text: String = "") {
        print(text)
    }

    /// One line on stderr, prefixed so it is clear which tool failed.
    static func error(_ text: String) {
        let line = FailureLine.text("localcloud: error", text) + "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Pretty, key-sorted JSON of an `Encodable` report.
    static func json(_ value: some Encodable) throws {
        print(String(decoding: try encoded(value), as: UTF8.self))
    }

    /// The bytes ``json(_:)`` prints (and `records export` writes): pretty-printed, keys sorted,
    /// slashes unescaped, explicit `null`s where a type writes them.
    static func encoded(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// Rows as aligned columns.
    static func table(_ header: [String], _ rows: [[String]]) {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        for row in all {
            let cells = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }
            print(cells.joined(separator: "  "))
        }
    }
}
