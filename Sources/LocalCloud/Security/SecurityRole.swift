/// The names of CloudKit's built-in security roles.
package enum SecurityRole {
    /// Everyone, signed in or not.
    package static let world = "_world"
    /// Any signed-in user.
    package static let icloud = "_icloud"
    /// The user who created the record.
    package static let creator = "_creator"

    package static let builtIn: Set<String> = [world, icloud, creator]

    /// Custom role names follow field-name rules: a letter, then letters, digits and underscores.
    package static func isValidCustomName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.utf8.count <= 255,
              ("a"..."z").contains(first) || ("A"..."Z").contains(first)
        else { return false }
        return name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
        }
    }
}
