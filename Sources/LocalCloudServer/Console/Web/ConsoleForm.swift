import Foundation

/// `application/x-www-form-urlencoded` fields (a POSTed form, or a query string).
struct ConsoleForm: Sendable {
    private(set) var fields: [String: String] = [:]

    init(_ fields: [String: String] = [:]) {
        self.fields = fields
    }

    init(urlEncoded bytes: [UInt8]) {
        for pair in String(decoding: bytes, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let key = decode(parts[0]) else { continue }
            // The first value wins, as with query parameters.
            if fields[key] == nil { fields[key] = parts.count == 2 ? decode(parts[1]) ?? "" : "" }
        }
    }

    subscript(_ key: String) -> String? {
        fields[key]
    }

    /// The field trimmed, `nil` when absent or blank.
    func text(_ key: String) -> String? {
        guard let value = fields[key]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }

    /// Fields whose name starts with `prefix`, by the rest of their name.
    func prefixed(_ prefix: String) -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in fields where key.hasPrefix(prefix) { result[String(key.dropFirst(prefix.count))] = value }
        return result
    }

    /// A query string of `pairs` with empty values left out, each part percent-encoded.
    static func query(_ pairs: [(String, String?)]) -> String {
        let parts = pairs.compactMap { key, value -> String? in
            guard let value, !value.isEmpty else { return nil }
            return "\(encode(key))=\(encode(value))"
        }
        return parts.isEmpty ? "" : "?" + parts.joined(separator: "&")
    }

    /// `text` percent-encoded but for RFC 3986's unreserved characters (ASCII letters, digits, `-._~`).
    /// Byte by byte: building a `CharacterSet` and `addingPercentEncoding` for each link was a fifth
    /// of a records page's time.
    static func encode(_ text: String) -> String {
        guard !text.utf8.allSatisfy(isUnreserved) else { return text }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }
}
