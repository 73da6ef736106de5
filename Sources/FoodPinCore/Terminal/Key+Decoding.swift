extension Key {
    /// Decodes one character code read from the terminal (not a function-key code).
    ///
    /// Terminals send Enter as CR (or LF), Backspace as DEL (127) or BS (8), and
    /// Ctrl-letter as the codes 1–26; the adapter maps its own function-key codes
    /// (arrows, Home, …) before falling back to this.
    ///
    /// ```swift
    /// Key(terminalCharacter: 13)   // .enter
    /// Key(terminalCharacter: 19)   // .control("s")
    /// Key(terminalCharacter: 0x6771) // .character("東")
    /// ```
    ///
    /// - Returns: `nil` for codes that are no key (other control codes, invalid scalars).
    package init?(terminalCharacter code: UInt32) {
        switch code {
        case 10, 13: self = .enter
        case 9: self = .tab
        case 27: self = .escape
        case 8, 127: self = .backspace
        case 1...26:
            guard let letter = Unicode.Scalar(0x60 + code) else { return nil }
            self = .control(Character(letter))
        case 0..<32, 0x80..<0xA0:
            return nil
        default:
            guard let scalar = Unicode.Scalar(code) else { return nil }
            self = .character(Character(scalar))
        }
    }
}
