import Foundation

extension String {
    /// Whether this string's UTF-8 is exactly `bytes`: a length check, then one `memcmp`, with
    /// no string made from the bytes. Rows and stored fields are matched against known text this way.
    func hasUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard utf8.count == bytes.count else { return false }
        var text = self
        return text.withUTF8 { utf8 in
            guard let a = utf8.baseAddress, let b = bytes.baseAddress else { return true }
            return memcmp(a, b, bytes.count) == 0
        }
    }
}
