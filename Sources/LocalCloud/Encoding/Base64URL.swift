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
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of URL-safe base64 text, padded or not; nil when it is not base64.
    package static func decode(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64.append("=") }
        return Data(base64Encoded: base64)
    }
}
