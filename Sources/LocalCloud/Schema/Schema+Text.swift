extension Schema {
    /// Parses CloudKit's text schema (a `.ckdb` file, as cktool imports and exports it).
    ///
    /// - Throws: `CloudError(.invalidArguments)` with the line and column of the first problem.
    package init(ckdb text: String) throws {
        self = try SchemaTextParser.parse(text)
    }

    /// The schema in CloudKit's text schema language; parsing it gives back this schema's
    /// types, fields, indexes, grants and roles.
    package var ckdb: String {
        var out = "DEFINE SCHEMA\n"
        if !roles.isEmpty {
            out += "\n"
            for role in roles.sorted() {
                out += "    CREATE ROLE \(Self.quotedIfNeeded(role));\n"
            }
        }
        for type in sortedRecordTypes {
            out += "\n    RECORD TYPE \(Self.quotedIfNeeded(type.name)) (\n"
            var lines: [String] = []
            let names = type.fields.map { Self.quotedIfNeeded($0.name) }
            let width = names.map(\.count).max() ?? 0
            for (field, name) in zip(type.fields, names) {
                var line = name.padding(toLength: max(width, name.count), withPad: " ", startingAt: 0) + " \(field.type)"
                for kind in field.indexes { line += " \(kind.keyword)" }
                lines.append(line)
            }
            for role in type.grants.keys.sorted() {
                guard let permissions = type.grants[role], !permissions.isEmpty else { continue }
                lines.append("GRANT \(permissions) TO \"\(role)\"")
            }
            out += lines.map { "        " + $0 }.joined(separator: ",\n")
            out += "\n    );\n"
        }
        return out
    }

    /// Only GRANT is ambiguous where a field name starts an item.
    private static let reservedWords: Set<String> = ["GRANT"]

    private static func quotedIfNeeded(_ name: String) -> String {
        let plain = name.first.map { $0.isLetter } == true
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
            && !reservedWords.contains(name.uppercased())
        return plain ? name : "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
