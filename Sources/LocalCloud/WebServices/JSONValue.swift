import Foundation

/// A JSON document as CloudKit Web Services carries it, decoded without a schema so each
/// endpoint can say exactly which key has the wrong type. Shared by the server and the remote store.
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

extension JSONValue {
    /// Parses a body; an empty body is an empty object.
    /// - Throws: `invalidArguments` when it is not JSON (or nests deeper than the decoder allows).
    package static func parse(_ bytes: some Collection<UInt8>) throws -> JSONValue {
        guard !bytes.isEmpty else { return .object([:]) }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw CloudError(.invalidArguments, "The request body is not valid JSON")
        }
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
    /// UTF-8 JSON, written by hand: the hot path of every response.
    package var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(into: &out)
        return out
    }

    package func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .number(let d):
            if d.isFinite {
                if d.rounded() == d && abs(d) < 1e15 { out.append(contentsOf: String(Int64(d)).utf8) }
                else { out.append(contentsOf: "\(d)".utf8) }
            } else {
                out.append(contentsOf: "null".utf8)
            }
        case .string(let s): Self.writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            var first = true
            // Sorted keys: equal documents are equal bytes (ETags, caches, tests).
            for key in members.keys.sorted() {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                Self.writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                members[key]?.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    package static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                        hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
