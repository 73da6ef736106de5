import Testing
@testable import FoodPinCore

@Suite struct LineEditorTests {
    func editor(_ text: String, keys: [Key], multiline: Bool = false) -> LineEditor {
        var editor = LineEditor(text, multiline: multiline)
        for key in keys { editor.handle(key) }
        return editor
    }

    @Test func movesAndDeletesByGrapheme() {
        var e = LineEditor("寿司👩‍👩‍👧e\u{301}")
        #expect(e.characters.count == 4)
        e.handle(.backspace)
        #expect(e.text == "寿司👩‍👩‍👧")
        e.handle(.left)
        e.handle(.backspace)
        #expect(e.text == "寿👩‍👩‍👧")
        e.handle(.home)
        e.handle(.delete)
        #expect(e.text == "👩‍👩‍👧")
        #expect(e.cursor == 0)
    }

    @Test func insertsAtTheCursor() {
        let e = editor("ac", keys: [.left, .character("b"), .end, .character("d"), .home, .character(">")])
        #expect(e.text == ">abcd")
        #expect(e.cursor == 1)
    }

    @Test func ctrlUKillsToTheStartAndCtrlKToTheEnd() {
        #expect(editor("hello world", keys: [.left, .left, .control("u")]).text == "ld")
        #expect(editor("hello world", keys: [.home, .right, .control("k")]).text == "h")
    }

    @Test func ctrlWDeletesTheWordBefore() {
        #expect(editor("Cafe  Deadend  ", keys: [.control("w")]).text == "Cafe  ")
        #expect(editor("~/Pictures/food.jpg", keys: [.control("w")]).text == "")
        #expect(editor("one two", keys: [.left, .left, .left, .control("w")]).text == "two")
    }

    @Test func controlCharactersAreRefused() {
        #expect(editor("", keys: [.character("\u{1B}"), .character("a"), .character("\u{9B}")]).text == "a")
        #expect(editor("", keys: [.enter, .character("a")]).text == "a")
    }

    @Test func multilineHasLinesAndLineWiseKeys() {
        let e = editor("first", keys: [.enter, .character("x"), .character("y"), .home, .character(">")], multiline: true)
        #expect(e.text == "first\n>xy")
        #expect(editor("ab\ncd", keys: [.control("u")], multiline: true).text == "ab\n")
    }

    @Test func maxLengthRefusesMore() {
        var e = LineEditor(maxLength: 3)
        for c in "abcdef" { e.handle(.character(c)) }
        #expect(e.text == "abc")
    }
}
