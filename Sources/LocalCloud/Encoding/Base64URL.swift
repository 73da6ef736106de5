import Foundation

/// URL-safe base64 without padding (RFC 4648 §5): web auth tokens, push tokens, continuation markers.
///
/// ```swift
/// Base64URL.encode(Data([0xfb, 0xff]))   // "-_8"
/// Base64URL.decode("-_8")                // Data([0xfb, 0xff])
/// ```
package enum Base64URL {
    /// `bytes` as base64 with `-` and `_` for `+` and `/`, and no `=` padding.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        // Straight from the bytes: every query page with more rows writes a continuation marker,
        // and three passes of `replacingOccurrences` through NSString were most of its cost.
        let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count * 4 + 2) / 3)
        alphabet.withUTF8Buffer { table in
            var index = 0
            while index + 3 <= input.count {
                let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                output.append(table[Int(chunk >> 18 & 0x3F)])
                output.append(table[Int(chunk >> 12 & 0x3F)])
                output.append(table[Int(chunk >> 6 & 0x3F)])
                output.append(table[Int(chunk & 0x3F)])
                index += 3
            }
            switch input.count - index {
            case 1:
                let chunk = UInt32(input[index]) << 16
                output.append(table[Int(chunk >> 18 & 0x3F)])
                output.append(table[Int(chunk >> 12 & 0x3F)])
            case 2:
                let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
                output.append(table[Int(chunk >> 18 & 0x3F)])
                output.append(table[Int(chunk >> 12 & 0x3F)])
                output.append(table[Int(chunk >> 6 & 0x3F)])
            default: break
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of URL-safe base64 text, padded or not; nil when it is not base64.
    package static func decode(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64.append("=") }
        return Data(base64Encoded: base64)
    }
}
