/// A parsed JSON value, from a small parser over UTF-8 bytes.
///
/// Decoding stored fields is on every query's path; Foundation's `JSONSerialization`
/// boxes every value in `NSNumber`/`NSDictionary` and dominated page latency.
enum JSONTree: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONTree])
    case object([(String, JSONTree)])

    static func == (lhs: JSONTree, rhs: JSONTree) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.int(a), .int(b)): a == b
        case let (.double(a), .double(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// Parses `text`; `nil` when it is not valid JSON.
    static func parse(_ text: String) -> JSONTree? {
        var text = text
        return text.withUTF8 { bytes in
            var parser = JSONParser(bytes: bytes)
            guard let value = parser.value() else { return nil }
            parser.skipWhitespace()
            return parser.index == bytes.count ? value : nil
        }
    }

    /// `nil` for JSON `null`, else the value itself.
    var nonNull: JSONTree? {
        if case .null = self { return nil }
        return self
    }

    var number: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    var int64: Int64? {
        switch self {
        case .int(let i): i
        case .double(let d): Int64(exactly: d)
        default: nil
        }
    }

    var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    var arrayValue: [JSONTree]? {
        if case .array(let a) = self { return a }
        return nil
    }

    subscript(key: String) -> JSONTree? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }
}
