/// A text column that usually holds the same value as in the previous row: a page's record type,
/// zone and user names repeat from row to row, so the previous row's string is reused when its
/// bytes match, and only a new value allocates. Both SQL stores read their pages through it.
package struct RepeatedText {
    private var last = ""

    package init() {}

    /// The string with these UTF-8 bytes.
    package mutating func read(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if last.hasUTF8(bytes) { return last }
        last = String(decoding: bytes, as: UTF8.self)
        return last
    }
}
