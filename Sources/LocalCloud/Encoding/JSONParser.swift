/// A cursor over JSON text in UTF-8: values as ``JSONValue``, or skipped without building
/// anything, or walked member by member (``FieldsJSON`` decodes stored fields that way).
///
/// The one reader of JSON in LocalCloud: request and response bodies, the response cache and
/// stored fields. Strict RFC 8259 (no raw control characters in strings, no leading zeros, no
/// `NaN`), and nesting is bounded so hostile input cannot exhaust the stack.
struct JSONParser {
    /// Arrays and objects nested deeper than this are refused, as Foundation's decoder refuses them.
    static let maximumDepth = 512

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    private var depth = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// The one value in `bytes`, with nothing but whitespace around it; `nil` when it is not JSON.
    static func document(_ bytes: UnsafeBufferPointer<UInt8>) -> JSONValue? {
        var parser = JSONParser(bytes: bytes)
        guard let value = parser.value() else { return nil }
        parser.skipWhitespace()
        return parser.index == bytes.count ? value : nil
    }

    mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    mutating func value() -> JSONValue? {
        skipWhitespace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    /// Consumes `byte` after any whitespace; `false` (and nothing consumed) when it is not next.
    mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// The raw bytes of the string that starts here (without quotes), when it has no escapes;
    /// `nil` with nothing consumed otherwise, so the caller can fall back to ``string()``.
    mutating func unescapedStringBytes() -> UnsafeBufferPointer<UInt8>? {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        var end = index + 1
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                let result = UnsafeBufferPointer(rebasing: bytes[(index + 1)..<end])
                index = end + 1
                return result
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            end += 1
        }
        return nil
    }

    /// Steps over one value without building it; `false` when the text is malformed.
    mutating func skipValue() -> Bool {
        skipWhitespace()
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return skipString()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // Strings are skipped whole, so brackets inside them are never counted.
            var depth = 0
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    guard skipString() else { return false }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 {
                        index += 1
                        return true
                    }
                default:
                    break
                }
                index += 1
            }
            return false
        default:
            return value() != nil
        }
    }

    private mutating func skipString() -> Bool {
        index += 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                return true
            case UInt8(ascii: "\\"):
                index += 2
            default:
                index += 1
            }
        }
        return false
    }

    private mutating func literal(_ word: StaticString, _ result: JSONValue) -> JSONValue? {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return nil }
        for i in 0..<count where bytes[index + i] != word.utf8Start[i] { return nil }
        index += count
        return result
    }

    private mutating func object() -> JSONValue? {
        guard depth < Self.maximumDepth else { return nil }
        depth += 1
        defer { depth -= 1 }
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            guard let member = value() else { return nil }
            // A repeated key: the last one wins, as in Foundation's decoder.
            members[key] = member
            skipWhitespace()
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            return nil
        }
    }

    private mutating func array() -> JSONValue? {
        guard depth < Self.maximumDepth else { return nil }
        depth += 1
        defer { depth -= 1 }
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            guard let item = value() else { return nil }
            items.append(item)
            skipWhitespace()
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            return nil
        }
    }

    /// The string that starts here, unescaped; `nil` when it is malformed.
    mutating func string() -> String? {
        if let raw = unescapedStringBytes() { return String(decoding: raw, as: UTF8.self) }
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        var scalars = ""
        var pending: [UInt8] = []
        func flush() {
            if !pending.isEmpty {
                scalars += String(decoding: pending, as: UTF8.self)
                pending.removeAll(keepingCapacity: true)
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                flush()
                return scalars
            case 0..<0x20:
                return nil
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): pending.append(0x22)
                case UInt8(ascii: "\\"): pending.append(0x5C)
                case UInt8(ascii: "/"): pending.append(0x2F)
                case UInt8(ascii: "b"): pending.append(0x08)
                case UInt8(ascii: "f"): pending.append(0x0C)
                case UInt8(ascii: "n"): pending.append(0x0A)
                case UInt8(ascii: "r"): pending.append(0x0D)
                case UInt8(ascii: "t"): pending.append(0x09)
                case UInt8(ascii: "u"):
                    guard var code = hex4() else { return nil }
                    if (0xD800..<0xDC00).contains(code) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { return nil }
                        index += 2
                        guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { return nil }
                    flush()
                    scalars.unicodeScalars.append(scalar)
                default: return nil
                }
            default:
                pending.append(byte)
            }
        }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value << 4 | digit
        }
        return value
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`: an `Int64` when it is an integer
    /// that fits, else a finite `Double` (an integer too large for 64 bits becomes one, as in Foundation).
    private mutating func number() -> JSONValue? {
        let start = index
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < bytes.count, isDigit(bytes[index]) else { return nil }
        // Accumulated as a negative number: Int64.min has no positive counterpart.
        var accumulated: Int64 = 0
        var overflow = false
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                let digit = Int64(bytes[index] &- UInt8(ascii: "0"))
                let (times10, o1) = accumulated.multipliedReportingOverflow(by: 10)
                let (next, o2) = times10.subtractingReportingOverflow(digit)
                if o1 || o2 { overflow = true } else { accumulated = next }
                index += 1
            }
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { return nil }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { return nil }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if isInteger && !overflow {
            if negative { return .int(accumulated) }
            let (positive, o) = (0 as Int64).subtractingReportingOverflow(accumulated)
            if !o { return .int(positive) }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let double = Double(text), double.isFinite else { return nil }
        return .number(double)
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
