import Foundation

/// Names and rules every SQL dialect shares.
package enum QuerySQL {
    /// The fields to decode for `desiredKeys`: without the system keys and repeats, `nil` for all.
    ///
    /// The desired keys are picked out of the fields JSON in Swift, not in SQL: one
    /// `json_extract` for each key's kind and one for its value cost about a microsecond per row
    /// each, even when the path is absent (SQLite looks up its parse cache and walks the path).
    package static func fieldKeys(_ desiredKeys: [String]?) throws -> [String]? {
        guard let keys = desiredKeys else { return nil }
        var wanted: [String] = []
        for key in keys where !systemKeys.contains(key) && !wanted.contains(key) {
            try FieldName.validate(key, what: "Desired key")
            wanted.append(key)
        }
        return wanted
    }

    static let systemKeys: Set<String> = [
        "recordName", "recordID", "creationDate", "modificationDate", "creatorUserRecordID",
        "lastModifiedUserRecordID", "recordChangeTag", "createdTimestamp", "modifiedTimestamp",
    ]

    /// The system column a sort key names, if any (always non-NULL).
    package static func systemColumn(forSortKey key: String) -> String? {
        switch key {
        case "creationDate", "createdTimestamp", "___createTime": "r.created_at"
        case "modificationDate", "modifiedTimestamp", "___modTime": "r.modified_at"
        case "recordName", "recordID", "___recordID": "r.record_name"
        case "creatorUserRecordID", "___createdBy": "r.created_by"
        case "lastModifiedUserRecordID", "___modifiedBy": "r.modified_by"
        default: nil
        }
    }

    /// The list field a list match names; system fields are not lists.
    package static func listFieldName(_ key: PredicateKey) throws -> String {
        guard case .field(let name) = key else {
            throw CloudError(.invalidArguments, "List matches need a list field, not a system field")
        }
        try FieldName.validate(name)
        return name
    }

    /// The least string above every string that starts with `prefix`, in code-point order (which
    /// is SQLite's BINARY order of UTF-8 and PostgreSQL's "C" collation): the last scalar that
    /// can grow, grown, with what followed it dropped. `nil` when there is none ("" or only U+10FFFF).
    package static func prefixUpperBound(_ prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            var next = last.value + 1
            if (0xD800...0xDFFF).contains(next) { next = 0xE000 }
            guard let grown = Unicode.Scalar(next) else { continue }
            scalars.append(grown)
            var bound = ""
            bound.unicodeScalars.append(contentsOf: scalars)
            return bound
        }
        return nil
    }
}
