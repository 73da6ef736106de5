import Foundation

/// A JSON document: LocalCloud's one JSON model. Request and response bodies (server and remote
/// store), the remote store's response cache and stored fields are read by ``JSONParser`` and
/// written by ``JSONWriter``; decoded without a schema so each endpoint can say exactly which key
/// has the wrong type.
///
/// Integers stay `Int64` (CloudKit's INT64 and millisecond timestamps need all 64 bits).
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

/// Foundation's path, for `Codable` types that embed a JSON value and for the benchmark that
/// compares it with ``JSONValue/parse(_:)``; LocalCloud itself reads JSON with ``JSONParser``.
extension JSONValue: Decodable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let int = try? container.decode(Int64.self) {
            self = .int(int)
        } else if let double = try? container.decode(Double.self) {
            self = .number(double)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}

/// For reports Foundation's `JSONEncoder` writes (the console's pretty-printed `--json`), where the
/// value sits inside an `Encodable` type; on the wire and on disk ``JSONWriter`` writes JSON.
extension JSONValue: Encodable {
    package func encode(to encoder: any Encoder) throws {
        var single = encoder.singleValueContainer()
        switch self {
        case .null: try single.encodeNil()
        case .bool(let bool): try single.encode(bool)
        case .int(let int): try single.encode(int)
        case .number(let double): try single.encode(double)
        case .string(let string): try single.encode(string)
        case .array(let array): try single.encode(array)
        case .object(let object): try single.encode(object)
        }
    }
}

extension JSONValue {
    /// Parses a body; an empty body is an empty object.
    ///
    /// ```swift
    /// let page = try JSONValue.parse(response.body)   // [UInt8], ArraySlice, Data…
    /// ```
    /// - Throws: `invalidArguments` when it is not JSON (or nests deeper than ``JSONParser/maximumDepth``).
    /// - Complexity: one pass over the bytes, with no copy when they are contiguous.
    package static func parse(_ bytes: some Collection<UInt8>) throws -> JSONValue {
        guard !bytes.isEmpty else { return .object([:]) }
        let parsed = bytes.withContiguousStorageIfAvailable { JSONParser.document($0) }
            ?? Array(bytes).withUnsafeBufferPointer { JSONParser.document($0) }
        guard let parsed else { throw CloudError(.invalidArguments, "The request body is not valid JSON") }
        return parsed
    }

    /// Parses JSON text; `nil` when it is not JSON (an empty text included).
    package static func parse(text: String) -> JSONValue? {
        var text = text
        return text.withUTF8 { JSONParser.document($0) }
    }

    /// `nil` for JSON `null`, else the value itself.
    var nonNull: JSONValue? {
        if case .null = self { return nil }
        return self
    }

    package var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    package var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    package var objectValue: [String: JSONValue]? { if case .object(let o) = self { o } else { nil } }
    package var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }

    /// An integer, from an integral number.
    package var int64Value: Int64? {
        switch self {
        case .int(let i): i
        case .number(let d) where d.rounded() == d && abs(d) < 9.2e18: Int64(d)
        default: nil
        }
    }

    package var doubleValue: Double? {
        switch self {
        case .int(let i): Double(i)
        case .number(let d): d
        default: nil
        }
    }

    package subscript(key: String) -> JSONValue? { objectValue?[key] }

    /// The value at a path of object keys and array indexes: `json.at("records", "0", "recordName")`.
    package func at(_ path: String...) -> JSONValue? {
        var current: JSONValue? = self
        for key in path {
            if let index = Int(key) { current = current?.arrayValue.flatMap { index < $0.count ? $0[index] : nil } }
            else { current = current?[key] }
        }
        return current
    }
}

// MARK: Writing

extension JSONValue {
    /// UTF-8 JSON, objects with sorted keys, through ``JSONWriter``: the hot path of every response.
    package var bytes: [UInt8] {
        var writer = JSONWriter()
        writer.append(self)
        return writer.bytes
    }

    package func write(into out: inout [UInt8]) {
        var writer = JSONWriter(capacity: 0)
        swap(&writer.bytes, &out)
        writer.append(self)
        swap(&writer.bytes, &out)
    }

    package static func writeString(_ string: String, into out: inout [UInt8]) {
        var writer = JSONWriter(capacity: 0)
        swap(&writer.bytes, &out)
        writer.appendString(string)
        swap(&writer.bytes, &out)
    }
}
