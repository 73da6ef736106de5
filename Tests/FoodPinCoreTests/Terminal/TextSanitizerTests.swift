import Testing
@testable import FoodPinCore

@Suite struct TextSanitizerTests {
    @Test func escapeSequencesBecomeVisible() {
        #expect(TextSanitizer.line("Bad\u{1B}[2J\u{1B}]0;pwned\u{07}") == "Bad␛[2J␛]0;pwned␇")
    }

    @Test func c1AndDeleteAndBidiBecomePlaceholders() {
        #expect(TextSanitizer.line("a\u{9B}31mb") == "a\u{FFFD}31mb")
        #expect(TextSanitizer.line("x\u{7F}y\u{0}") == "x␡y␀")
        #expect(TextSanitizer.line("abc\u{202E}def") == "abc\u{FFFD}def")
    }

    @Test func tabsAndNewlinesInOneLine() {
        #expect(TextSanitizer.line("a\tb\nc\r\nd\re") == "a b⏎c⏎d⏎e")
    }

    @Test func linesSplitOnEveryBreakAndExpandTabs() {
        #expect(TextSanitizer.lines("one\r\ntwo\rthree\nfour") == ["one", "two", "three", "four"])
        #expect(TextSanitizer.lines("a\tb") == ["a   b"])
        #expect(TextSanitizer.lines("") == [""])
    }

    @Test func noControlScalarSurvives() {
        let all = String(String.UnicodeScalarView((0...0x9F).compactMap(Unicode.Scalar.init)))
        for output in [TextSanitizer.line(all)] + TextSanitizer.lines(all) {
            #expect(!output.unicodeScalars.contains { TextSanitizer.isUnsafe($0) })
        }
    }

    @Test func cleanTextIsUnchanged() {
        let text = "Cafe Deadend · 寿司 🍣 café"
        #expect(TextSanitizer.line(text) == text)
    }
}
