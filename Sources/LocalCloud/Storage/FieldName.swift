/// Field and record-type names, which CloudKit limits to identifiers.
///
/// Only names that pass this check are ever written into SQL text (as JSON paths, so
/// expression indexes can match them); values are always bound arguments.
package enum FieldName {
    package static func isValid(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.utf8.count <= 255 else { return false }
        guard first.isASCIILetter else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "_" }
    }

    package static func validate(_ name: String, what: String = "Field name") throws {
        guard isValid(name) else {
            throw CloudError(.invalidArguments, "\(what) '\(name)' is invalid: use letters, digits and underscores, starting with a letter")
        }
    }

    /// The JSON path of a field's comparable value, e.g. `$."name".v`.
    static func valuePath(_ name: String) -> String { "$.\"\(name)\".v" }
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
