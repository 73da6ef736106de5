/// A text field's contents and cursor, edited like a shell line.
///
/// Works on grapheme clusters, so one Backspace removes one "é", one "寿" or one "👩‍👩‍👧".
///
/// | Key | Effect |
/// |---|---|
/// | ←/→, Ctrl-B/Ctrl-F | move one grapheme |
/// | Home/End, Ctrl-A/Ctrl-E | start/end of the (current) line |
/// | Backspace / Delete | delete before / under the cursor |
/// | Ctrl-U / Ctrl-K | delete to the start / end of the line |
/// | Ctrl-W | delete the word before the cursor |
/// | Enter | a new line, in a multi-line editor only |
package struct LineEditor: Hashable, Sendable {
    package private(set) var characters: [Character]
    /// The cursor's position in `characters`, 0…count.
    package private(set) var cursor: Int
    package let isMultiline: Bool
    /// The most graphemes it accepts; typing past it is refused rather than truncating later.
    package let maxLength: Int

    package init(_ text: String = "", multiline: Bool = false, maxLength: Int = 4096) {
        characters = Array(text)
        cursor = characters.count
        isMultiline = multiline
        self.maxLength = maxLength
    }

    package var text: String { String(characters) }
    package var isEmpty: Bool { characters.isEmpty }

    /// Replaces the text and puts the cursor at the end.
    package mutating func setText(_ text: String) {
        characters = Array(text.prefix(maxLength))
        cursor = characters.count
    }

    /// Applies an editing key. Returns whether the key was an editing key.
    @discardableResult
    package mutating func handle(_ key: Key) -> Bool {
        switch key {
        case .character(let character): insert(character)
        case .enter where isMultiline: insert("\n")
        case .left, .control("b"): cursor = max(0, cursor - 1)
        case .right, .control("f"): cursor = min(characters.count, cursor + 1)
        case .home, .control("a"): cursor = lineStart
        case .end, .control("e"): cursor = lineEnd
        case .backspace, .control("h"):
            guard cursor > 0 else { return true }
            characters.remove(at: cursor - 1)
            cursor -= 1
        case .delete, .control("d"):
            guard cursor < characters.count else { return true }
            characters.remove(at: cursor)
        case .control("u"):
            let start = lineStart
            characters.removeSubrange(start..<cursor)
            cursor = start
        case .control("k"):
            characters.removeSubrange(cursor..<lineEnd)
        case .control("w"):
            var start = cursor
            while start > 0, characters[start - 1].isWhitespace, characters[start - 1] != "\n" { start -= 1 }
            while start > 0, !characters[start - 1].isWhitespace { start -= 1 }
            characters.removeSubrange(start..<cursor)
            cursor = start
        default:
            return false
        }
        return true
    }

    /// Inserts a grapheme at the cursor. Control characters are refused (a newline only in multi-line).
    package mutating func insert(_ character: Character) {
        if character == "\n" || character == "\r\n" || character == "\r" {
            guard isMultiline else { return }
        } else if character.unicodeScalars.contains(where: TextSanitizer.isUnsafe) {
            return
        }
        guard characters.count < maxLength else { return }
        characters.insert(character == "\r\n" || character == "\r" ? "\n" : character, at: cursor)
        cursor += 1
    }

    private var lineStart: Int {
        guard isMultiline else { return 0 }
        var index = cursor
        while index > 0, characters[index - 1] != "\n" { index -= 1 }
        return index
    }

    private var lineEnd: Int {
        guard isMultiline else { return characters.count }
        var index = cursor
        while index < characters.count, characters[index] != "\n" { index += 1 }
        return index
    }
}
