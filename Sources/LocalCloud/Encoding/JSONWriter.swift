/// The one writer of JSON in LocalCloud: a UTF-8 output buffer that ``JSONValue`` (bodies on the
/// wire, the response cache) and ``FieldsJSON`` (stored fields) append to.
///
/// Appending bytes is several times cheaper than growing a `String`, and every response and
/// every saved record passes through here.
struct JSONWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Text known to need no escaping (kinds, numbers).
    mutating func appendRaw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    mutating func appendInteger(_ value: Int64) {
        guard value != 0 else { bytes.append(UInt8(ascii: "0")); return }
        // Digits from the right into a small stack buffer: no String per number.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var magnitude = value.magnitude
            var count = 0
            while magnitude > 0 {
                digits[19 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[(20 - count)..<20]))
        }
    }

    /// A stored double: Swift's shortest round-tripping text (`1.0`, `0.1`, `1e+300`); `null` when not finite.
    mutating func appendDouble(_ d: Double) {
        if d.isFinite { appendRaw(d.description) } else { append("null") }
    }

    /// A number on the wire: integral values below 10^15 as integers (`1500`, not `1500.0`), as
    /// CloudKit Web Services writes them; others as ``appendDouble(_:)``.
    mutating func appendNumber(_ d: Double) {
        if d.isFinite, d.rounded() == d, abs(d) < 1e15 { appendInteger(Int64(d)) } else { appendDouble(d) }
    }

    /// A quoted string. `"`, `\`, the C0 controls and DEL are escaped (`\n`, `\r`, `\t`, else
    /// `\u00XX`); everything else, `/` and non-ASCII included, is written as it is.
    mutating func appendString(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = s
        text.withUTF8 { utf8 in
            var start = 0
            for (i, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i]))
                start = i + 1
                switch byte {
                case UInt8(ascii: "\""): append("\\\"")
                case UInt8(ascii: "\\"): append("\\\\")
                case 0x0A: append("\\n")
                case 0x0D: append("\\r")
                case 0x09: append("\\t")
                default:
                    let hex: StaticString = "0123456789abcdef"
                    append("\\u00")
                    bytes.append(hex.utf8Start[Int(byte >> 4)])
                    bytes.append(hex.utf8Start[Int(byte & 0xF)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A value, objects with their keys sorted: equal documents are equal bytes (ETags, caches,
    /// change tokens, tests).
    mutating func append(_ value: JSONValue) {
        switch value {
        case .null: append("null")
        case .bool(let b): if b { append("true") } else { append("false") }
        case .int(let i): appendInteger(i)
        case .number(let d): appendNumber(d)
        case .string(let s): appendString(s)
        case .array(let items):
            bytes.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                append(item)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members) where members.count <= 2:
            // Field values (`{type, value}`) and zone IDs: ordered without sorting into a new array.
            bytes.append(UInt8(ascii: "{"))
            var pair = members.makeIterator()
            if let one = pair.next() {
                if let two = pair.next() {
                    let (low, high) = one.key < two.key ? (one, two) : (two, one)
                    appendMember(low.key, low.value)
                    bytes.append(UInt8(ascii: ","))
                    appendMember(high.key, high.value)
                } else {
                    appendMember(one.key, one.value)
                }
            }
            bytes.append(UInt8(ascii: "}"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                appendString(key)
                bytes.append(UInt8(ascii: ":"))
                append(member)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    private mutating func appendMember(_ key: String, _ value: JSONValue) {
        appendString(key)
        bytes.append(UInt8(ascii: ":"))
        append(value)
    }
}
