import Foundation
import Testing
@testable import FoodPinCore

/// Link targets from record text, and the OSC 8 bytes the adapter writes for a grid's spans.
struct HyperlinkTests {
    @Test func phoneNumbersBecomeTelLinks() {
        #expect(Hyperlink.phone("+852 2234 5678")?.target == "tel:+852-2234-5678")
        #expect(Hyperlink.phone(" +1 (514) 555-0142 ")?.target == "tel:+1-(514)-555-0142")
        #expect(Hyperlink.phone("call 555\u{1B}]8;;x\u{7}")?.target == "tel:call-555%1B%5D8%3B%3Bx%07")
        #expect(Hyperlink.phone("") == nil)
        #expect(Hyperlink.phone("no digits") == nil)
    }

    @Test func locationsBecomeOpenStreetMapSearches() {
        #expect(Hyperlink.map("Montréal, Canada")?.target == "https://www.openstreetmap.org/search?query=Montr%C3%A9al%2C%20Canada")
        #expect(Hyperlink.map("東京 & 5/6?#")?.target == "https://www.openstreetmap.org/search?query=%E6%9D%B1%E4%BA%AC%20%26%205%2F6%3F%23")
        #expect(Hyperlink.map("  ") == nil)
        // Whatever the text, the target is printable ASCII: it cannot end or start a sequence.
        for text in ["\u{1B}\\", "\u{9C}", "a\u{7}b", "\n\r\t", "\u{202E}evil", "🍜"] {
            let target = Hyperlink.map("x" + text)?.target ?? ""
            #expect(target.utf8.allSatisfy { (0x21...0x7E).contains($0) }, "\(target)")
        }
        #expect(Hyperlink(target: "https://x\u{1B}") == nil)
        #expect(Hyperlink(target: "a b") == nil)
    }

    func grid(_ text: String, link: Hyperlink, style: CellStyle = .plain) -> Grid {
        var grid = Grid(width: 20, height: 3)
        let end = grid.put(text, x: 2, y: 1, style: style)
        grid.links = [LinkSpan(x: 2, y: 1, width: end - 2, link: link)]
        return grid
    }

    @Test func aSpanIsItsCellsBetweenOSC8OpenAndClose() throws {
        let link = try #require(Hyperlink.map("Tokyo"))
        let underlined = CellStyle(foreground: .indexed(214), attributes: [.underline])
        let bytes = HyperlinkWriter(colorMode: .colors256).bytes(for: grid("Tokyo 東京", link: link, style: underlined).links[0],
                                                                  in: grid("Tokyo 東京", link: link, style: underlined))
        let expected = "\u{1B}7\u{1B}[2;3H\u{1B}]8;;https://www.openstreetmap.org/search?query=Tokyo\u{1B}\\"
            + "\u{1B}[0;4;38;5;214mTokyo 東京\u{1B}]8;;\u{1B}\\\u{1B}8"
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
        // Eight colours and none: the same style as the mode shows it.
        let eight = HyperlinkWriter(colorMode: .colors8).sgr(CellStyle(foreground: .indexed(9), background: .indexed(4), attributes: [.bold]))
        #expect(eight == "\u{1B}[0;1;31;44m")
        #expect(HyperlinkWriter(colorMode: .none).sgr(underlined) == "\u{1B}[0;4m")
    }

    @Test func aControlCharacterInACellIsWrittenAsAQuestionMark() throws {
        var g = grid("ab", link: try #require(Hyperlink.map("x")))
        g[3, 1] = Cell("\u{1B}")
        let text = String(decoding: HyperlinkWriter(colorMode: .none).bytes(for: g.links[0], in: g), as: UTF8.self)
        #expect(text.contains("\u{1B}[0ma?\u{1B}]8;;"))
    }

    @Test func onlyNewOrChangedSpansAreWrittenAndLinksThatLeftAreRepainted() throws {
        let map = try #require(Hyperlink.map("Lyon"))
        let first = grid("Lyon", link: map)
        #expect(HyperlinkWriter.spansToWrite(previous: nil, current: first, repainted: []) == first.links)
        #expect(HyperlinkWriter.spansToWrite(previous: first, current: first, repainted: []).isEmpty, "nothing changed")
        #expect(HyperlinkWriter.spansToWrite(previous: first, current: first, repainted: [1]) == first.links, "its row was repainted")
        var changed = first
        changed[3, 1] = Cell("X")
        #expect(HyperlinkWriter.spansToWrite(previous: first, current: changed, repainted: []) == first.links, "a cell under it changed")
        var gone = first
        gone.links = []
        #expect(HyperlinkWriter.rowsToRepaint(previous: first, current: gone) == [1])
        #expect(HyperlinkWriter.rowsToRepaint(previous: first, current: first).isEmpty)
        #expect(HyperlinkWriter.rowsToRepaint(previous: nil, current: first).isEmpty)
    }
}
