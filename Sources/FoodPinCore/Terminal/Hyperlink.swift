import Foundation

/// The target of an OSC 8 hyperlink, made from record text: percent-encoded, so that it is
/// printable ASCII and can never end the escape sequence or start another.
///
/// ```swift
/// Hyperlink.phone("+852 2234 5678")?.target      // "tel:+852-2234-5678"
/// Hyperlink.map("Montréal, Canada")?.target      // "https://www.openstreetmap.org/search?query=Montr%C3%A9al%2C%20Canada"
/// ```
package struct Hyperlink: Hashable, Sendable {
    /// Only bytes 0x21–0x7E: no space, control character, ESC, BEL or ST.
    package let target: String

    /// `nil` unless `target` is printable ASCII without spaces.
    package init?(target: String) {
        guard !target.isEmpty, target.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        self.target = target
    }

    /// A `tel:` link: spaces become the visual separator `-` (RFC 3966), and anything but
    /// digits, letters and `+-.()*#` is percent-encoded. `nil` without a digit.
    package static func phone(_ phone: String) -> Hyperlink? {
        let trimmed = phone.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.contains(where: \.isASCIIDigit) else { return nil }
        var number = ""
        var lastWasSpace = false
        for character in trimmed {
            if character.isWhitespace {
                if !lastWasSpace { number += "-" }
                lastWasSpace = true
                continue
            }
            lastWasSpace = false
            number += percentEncoded(String(character), keeping: Self.telCharacters)
        }
        return Hyperlink(target: "tel:" + number)
    }

    /// An OpenStreetMap search for `location`. `nil` for a blank location.
    package static func map(_ location: String) -> Hyperlink? {
        let trimmed = location.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        return Hyperlink(target: "https://www.openstreetmap.org/search?query=" + percentEncoded(trimmed, keeping: unreserved))
    }

    /// RFC 3986's unreserved characters: the only ones a query value keeps as they are.
    static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
    static let telCharacters = unreserved.union("+().*#".utf8)

    /// Every UTF-8 byte of `text` outside `keeping` as `%XX`.
    package static func percentEncoded(_ text: String, keeping: Set<UInt8>) -> String {
        var out = ""
        for byte in text.utf8 {
            if keeping.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
