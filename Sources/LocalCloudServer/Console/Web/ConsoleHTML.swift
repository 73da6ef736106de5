import Mustache

/// The console's HTML escaping for Mustache (`{{% CONTENT_TYPE: CONSOLE_HTML}}` at the top of every
/// template): the same five characters as Mustache's own HTML type (`& < > " '`), replaced over
/// UTF-8 bytes instead of looking each `Character` up in a dictionary, which was a tenth of a
/// records page's time. The five are ASCII, so no byte of a multi-byte character is ever one of them.
struct ConsoleHTML: MustacheContentType {
    static let name = "CONSOLE_HTML"

    func escapeText(_ text: String) -> String {
        Self.escape(text)
    }

    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: isSpecial) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 32)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): out += Array("&amp;".utf8)
            case UInt8(ascii: "<"): out += Array("&lt;".utf8)
            case UInt8(ascii: ">"): out += Array("&gt;".utf8)
            case UInt8(ascii: "\""): out += Array("&quot;".utf8)
            case UInt8(ascii: "'"): out += Array("&#39;".utf8)
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isSpecial(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "\"")
            || byte == UInt8(ascii: "'")
    }
}
