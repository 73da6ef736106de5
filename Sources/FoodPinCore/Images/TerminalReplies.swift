/// The terminal's answers to ``ImageModeDecision/query``, parsed from the raw bytes read back.
package struct TerminalReplies: Hashable, Sendable {
    /// `ESC _G i=31 ; OK ESC \`: kitty graphics work.
    package var kittyGraphics = false
    /// DA1's attributes (`ESC [ ? 62 ; 4 ; 22 c` → [62, 4, 22]), or `nil` if DA1 was not answered.
    package var deviceAttributes: [Int]?

    package init(kittyGraphics: Bool = false, deviceAttributes: [Int]? = nil) {
        self.kittyGraphics = kittyGraphics
        self.deviceAttributes = deviceAttributes
    }

    /// Parses whatever arrived; unrelated bytes (a key typed meanwhile) are skipped.
    package init(parsing bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let range = text.range(of: "\u{1B}_Gi=31;") {
            kittyGraphics = text[range.upperBound...].hasPrefix("OK")
        }
        if let start = text.range(of: "\u{1B}[?") {
            let rest = text[start.upperBound...]
            if let end = rest.firstIndex(of: "c") {
                deviceAttributes = rest[..<end].split(separator: ";").compactMap { Int($0) }
            }
        }
    }

    /// Whether the terminal answered anything we asked.
    package var answered: Bool { kittyGraphics || deviceAttributes != nil }

    /// DA1 attribute 4: sixel graphics.
    package var sixel: Bool { deviceAttributes?.dropFirst().contains(4) == true }

    /// Whether the wait can end: the DA1 reply (which always comes last) is complete, or, when
    /// the environment already says kitty graphics (`expectsKitty`), the kitty reply said OK.
    /// A hint only shortens the wait: without a reply nothing is decided from it.
    package static func isComplete(_ bytes: [UInt8], expectsKitty: Bool = false) -> Bool {
        let replies = TerminalReplies(parsing: bytes)
        return replies.deviceAttributes != nil || expectsKitty && replies.kittyGraphics
    }
}
