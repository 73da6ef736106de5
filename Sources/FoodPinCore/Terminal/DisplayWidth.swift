/// The number of terminal columns a grapheme takes: 0, 1 or 2.
public enum DisplayWidth {
    // Placeholder rule until the full East Asian Width / emoji table lands.
    public static func of(_ character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        let v = scalar.value
        if v < 0x20 || (0x7F..<0xA0).contains(v) { return 0 }
        if (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
            || (0xF900...0xFAFF).contains(v) || (0xFF00...0xFF60).contains(v) || (0xFFE0...0xFFE6).contains(v)
            || (0x1F300...0x1FAFF).contains(v) || (0x20000...0x3FFFD).contains(v) {
            return 2
        }
        return 1
    }

    /// The display width of a whole string.
    public static func of(_ text: String) -> Int { text.reduce(0) { $0 + of($1) } }
}
