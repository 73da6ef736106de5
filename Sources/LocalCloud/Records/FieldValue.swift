import Foundation

/// The canonical, storable form of every record field value.
///
/// Public `RecordValue` types convert to and from this; storage and the
/// predicate compiler only ever see `FieldValue`.
package enum FieldValue: Sendable, Equatable {
    case string(String)
    case int64(Int64)
    case double(Double)
    case bool(Bool)
    case date(Date)
    case bytes(Data)
    case location(Location)
    case reference(Record.Reference)
    case asset(Asset)
    case list([FieldValue])

    /// The schema type name of this value (`"STRING"`, `"INT64"`, `"LIST<STRING>"`, …), as in CloudKit's text schema.
    var typeName: String {
        switch self {
        case .string: "STRING"
        case .int64: "INT64"
        case .double: "DOUBLE"
        case .bool: "INT64"
        case .date: "TIMESTAMP"
        case .bytes: "BYTES"
        case .location: "LOCATION"
        case .reference: "REFERENCE"
        case .asset: "ASSET"
        case .list(let items): "LIST<\(items.first?.typeName ?? "STRING")>"
        }
    }

    package static func == (lhs: FieldValue, rhs: FieldValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): a == b
        case let (.int64(a), .int64(b)): a == b
        case let (.double(a), .double(b)): a == b
        case let (.bool(a), .bool(b)): a == b
        case let (.date(a), .date(b)): a == b
        case let (.bytes(a), .bytes(b)): a == b
        case let (.location(a), .location(b)): a == b
        case let (.reference(a), .reference(b)): a == b
        case let (.asset(a), .asset(b)): a === b || (a.contentDigest != nil && a.contentDigest == b.contentDigest)
        case let (.list(a), .list(b)): a == b
        default: false
        }
    }
}
