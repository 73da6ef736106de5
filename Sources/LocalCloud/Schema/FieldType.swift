import Foundation

/// A field's type in a record-type schema, named as in CloudKit's text schema (`STRING`, `LIST<INT64>`, …).
///
/// `Bool` values are stored as `INT64`, as CloudKit does.
package indirect enum FieldType: Hashable, Sendable, CustomStringConvertible {
    case string
    case int64
    case double
    case timestamp
    case bytes
    case location
    case reference
    case asset
    case list(FieldType)

    /// The text-schema spelling, e.g. `LIST<STRING>`.
    package var description: String {
        switch self {
        case .string: "STRING"
        case .int64: "INT64"
        case .double: "DOUBLE"
        case .timestamp: "TIMESTAMP"
        case .bytes: "BYTES"
        case .location: "LOCATION"
        case .reference: "REFERENCE"
        case .asset: "ASSET"
        case .list(let element): "LIST<\(element)>"
        }
    }

    /// Parses the text-schema spelling (case-insensitive, spaces allowed inside `LIST< … >`).
    package init?(name: String) {
        let text = name.filter { !$0.isWhitespace }.uppercased()
        if text.hasPrefix("LIST<"), text.hasSuffix(">") {
            let inner = String(text.dropFirst(5).dropLast())
            guard let element = FieldType(name: inner), !element.isList else { return nil }
            self = .list(element)
            return
        }
        switch text {
        case "STRING": self = .string
        case "INT64": self = .int64
        case "DOUBLE": self = .double
        case "TIMESTAMP": self = .timestamp
        case "BYTES": self = .bytes
        case "LOCATION": self = .location
        case "REFERENCE": self = .reference
        case "ASSET": self = .asset
        default: return nil
        }
    }

    package var isList: Bool {
        if case .list = self { true } else { false }
    }

    /// The scalar type: the element type of a list, else the type itself.
    package var scalar: FieldType {
        if case .list(let element) = self { element } else { self }
    }

    /// Which index kinds CloudKit allows on this type: bytes and assets cannot be indexed,
    /// only strings are searchable, and lists are not sortable.
    package func allows(_ kind: IndexKind) -> Bool {
        switch kind {
        case .queryable: ![.bytes, .asset].contains(scalar)
        case .sortable: !isList && ![.bytes, .asset, .reference].contains(self)
        case .searchable: scalar == .string
        }
    }
}

extension FieldType: Codable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let type = FieldType(name: name) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Unknown field type '\(name)'")
        }
        self = type
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension FieldValue {
    /// The schema type this value gives a field; `nil` for an empty list, whose element type is unknown.
    ///
    /// - Throws: `CloudError(.invalidArguments)` for a list that mixes types or nests lists.
    func schemaType(field: String) throws -> FieldType? {
        switch self {
        case .string: return .string
        case .int64, .bool: return .int64
        case .double: return .double
        case .date: return .timestamp
        case .bytes: return .bytes
        case .location: return .location
        case .reference: return .reference
        case .asset: return .asset
        case .list(let items):
            var element: FieldType?
            for item in items {
                if case .list = item {
                    throw CloudError(.invalidArguments, "Field '\(field)' holds a list of lists, which CloudKit does not support")
                }
                guard let type = try item.schemaType(field: field) else { continue }
                if let known = element, known != type {
                    throw CloudError(.invalidArguments, "Field '\(field)' mixes \(known) and \(type) in one list")
                }
                element = type
            }
            return element.map { .list($0) }
        }
    }
}
