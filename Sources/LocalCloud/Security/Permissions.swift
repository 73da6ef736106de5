/// What a security role may do with records of one type in the public database.
package struct Permissions: OptionSet, Hashable, Sendable, Codable, CustomStringConvertible {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    /// Fetch and query records.
    package static let read = Permissions(rawValue: 1)
    /// Save new records.
    package static let create = Permissions(rawValue: 2)
    /// Change and delete existing records.
    package static let write = Permissions(rawValue: 4)

    /// Each permission with its text-schema keyword, in the order the text schema prints them.
    package static let keywords: [(Permissions, String)] = [(.read, "READ"), (.create, "CREATE"), (.write, "WRITE")]

    /// Parses `READ`, `create`, … (one keyword).
    package init?(keyword: String) {
        guard let match = Self.keywords.first(where: { $0.1 == keyword.uppercased() }) else { return nil }
        self = match.0
    }

    /// `READ, WRITE`.
    package var description: String {
        Self.keywords.filter { contains($0.0) }.map(\.1).joined(separator: ", ")
    }
}
