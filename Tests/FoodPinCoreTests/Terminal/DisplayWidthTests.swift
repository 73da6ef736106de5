import Testing
@testable import FoodPinCore

@Suite struct DisplayWidthTests {
    @Test(arguments: [
        ("a", 1), ("é", 1), ("e\u{301}", 1), ("寿", 2), ("한", 2), ("Ａ", 2), ("ｱ", 1), ("。", 2),
        ("🍣", 2), ("❤️", 2), ("❤", 1), ("👍🏽", 2), ("👩‍👩‍👧", 2), ("🇭🇰", 2), ("1️⃣", 2), ("☕", 2),
        ("\u{301}", 0), ("\u{200B}", 0), ("\u{1160}", 0), ("𠀋", 2), ("─", 1), ("⠋", 1),
    ] as [(String, Int)])
    func width(of text: String, expected: Int) {
        #expect(text.count == 1, "\(text) should be one grapheme")
        #expect(DisplayWidth.of(Character(text)) == expected, "width of \(text.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test func stringWidthAddsGraphemes() {
        #expect(DisplayWidth.of("Sushi 寿司 🍣") == 6 + 4 + 1 + 2)
        #expect(DisplayWidth.of("") == 0)
    }

    @Test func wideTableIsSortedAndDisjoint() {
        for (a, b) in zip(DisplayWidth.wideRanges, DisplayWidth.wideRanges.dropFirst()) {
            #expect(a.upperBound < b.lowerBound, "\(a) overlaps or precedes \(b)")
        }
    }

    @Test func controlsHaveNoWidth() {
        for value in UInt32(0)..<0x20 {
            #expect(DisplayWidth.width(of: Unicode.Scalar(value)!) == 0)
        }
        #expect(DisplayWidth.width(of: "\u{7F}") == 0)
        #expect(DisplayWidth.width(of: "\u{9B}") == 0)
    }
}
